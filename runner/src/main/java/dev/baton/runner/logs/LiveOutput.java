package dev.baton.runner.logs;

import dev.baton.channelclient.machine.OutputChunk;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Between a job's capture threads and the agent loop: the output printed since the last flush, in
 * the order it was printed, bounded by {@link #BUFFER_BYTES}. A capture thread only copies into
 * memory (it never waits on the loop or the network); past the bound the bytes are counted as
 * dropped instead. The agent drains it within {@link #FLUSH_INTERVAL} of the first bytes waiting,
 * or sooner once {@link #FLUSH_BYTES} are waiting, into {@link OutputChunk}s of whole UTF-8
 * characters; while nothing waits, nothing is scheduled.
 *
 * <p>Byte counts are exact per stream (text bytes plus dropped bytes add up to what the capture
 * kept), so the server can tell where each live entry lies in the stored output: an incomplete
 * character at the end of a read waits for its remaining bytes, and after a drop the next bytes
 * that continue a dropped character are dropped too.
 */
public final class LiveOutput {
    public static final Duration FLUSH_INTERVAL = Duration.ofMillis(150);
    public static final int FLUSH_BYTES = RunnerMessage.Log.MAX_TEXT_BYTES;
    public static final int BUFFER_BYTES = 256 * 1024;

    private record Key(int iteration, LogStream stream) {}

    /** Either text bytes or a dropped count, for one stream. */
    private static final class Segment {
        final Key key;
        final ByteArrayOutputStream bytes; // null for a drop
        long dropped;

        Segment(Key key, boolean drop) {
            this.key = key;
            this.bytes = drop ? null : new ByteArrayOutputStream();
        }
    }

    private final int bufferBytes;
    private final int chunkBytes;
    private final Deque<Segment> segments = new ArrayDeque<>();
    private final Map<Key, byte[]> partial = new HashMap<>();
    private final Set<Key> afterDrop = new HashSet<>();
    private int pendingBytes;
    private boolean queued;

    public LiveOutput() {
        this(BUFFER_BYTES, RunnerMessage.Log.MAX_TEXT_BYTES);
    }

    LiveOutput(int bufferBytes, int chunkBytes) {
        this.bufferBytes = bufferBytes;
        this.chunkBytes = chunkBytes;
    }

    /** From a capture thread. Returns true when a flush is due ({@link #FLUSH_BYTES} waiting). */
    public synchronized boolean write(int iteration, LogStream stream, byte[] b, int off, int len) {
        Key key = new Key(iteration, stream);
        if (afterDrop.contains(key)) {
            int skip = 0;
            while (skip < len && isContinuation(b[off + skip])) skip++;
            if (skip > 0) addDrop(key, skip);
            off += skip;
            len -= skip;
            if (len == 0) return false;
            afterDrop.remove(key);
        }
        byte[] head = partial.remove(key);
        int headLength = head == null ? 0 : head.length;
        if (pendingBytes + headLength + len > bufferBytes) {
            addDrop(key, headLength + (long) len);
            afterDrop.add(key);
            return true;
        }
        byte[] all = new byte[headLength + len];
        if (head != null) System.arraycopy(head, 0, all, 0, headLength);
        System.arraycopy(b, off, all, headLength, len);
        int complete = completePrefix(all);
        if (complete < all.length) partial.put(key, java.util.Arrays.copyOfRange(all, complete, all.length));
        if (complete > 0) {
            Segment last = segments.peekLast();
            if (last == null || last.bytes == null || !last.key.equals(key)) {
                last = new Segment(key, false);
                segments.add(last);
            }
            last.bytes.write(all, 0, complete);
            pendingBytes += complete;
        }
        return pendingBytes >= FLUSH_BYTES;
    }

    private void addDrop(Key key, long bytes) {
        Segment last = segments.peekLast();
        if (last == null || last.bytes != null || !last.key.equals(key)) {
            last = new Segment(key, true);
            segments.add(last);
        }
        last.dropped += bytes;
    }

    /** Marks the buffer as handed to the loop, if it has anything; the loop calls {@link #consumed()}. */
    public synchronized boolean claim() {
        if (queued || segments.isEmpty()) return false;
        queued = true;
        return true;
    }

    /** The loop handled the claimed batch; whether more waits already (printed meanwhile). */
    public synchronized boolean consumed() {
        queued = false;
        return !segments.isEmpty();
    }

    /** Everything waiting, as chunks of at most one log message each, in print order. */
    public synchronized List<OutputChunk> drain() {
        List<OutputChunk> out = new ArrayList<>();
        for (Segment s : segments) {
            if (s.bytes == null) {
                out.add(OutputChunk.dropped(s.key.iteration(), s.key.stream(), s.dropped));
                continue;
            }
            byte[] bytes = s.bytes.toByteArray();
            int start = 0;
            while (start < bytes.length) {
                int end = Math.min(bytes.length, start + chunkBytes);
                while (end < bytes.length && end > start + 1 && isContinuation(bytes[end])) end--;
                out.add(OutputChunk.text(
                        s.key.iteration(),
                        s.key.stream(),
                        new String(bytes, start, end - start, StandardCharsets.UTF_8),
                        end - start));
                start = end;
            }
        }
        segments.clear();
        pendingBytes = 0;
        return out;
    }

    /** How many leading bytes end on a character boundary (a trailing incomplete sequence waits). */
    static int completePrefix(byte[] b) {
        int n = b.length;
        // Look back at most 3 bytes for the lead byte of the last sequence.
        for (int i = n - 1; i >= Math.max(0, n - 4); i--) {
            int c = b[i] & 0xFF;
            if (c < 0x80) return n; // ASCII: everything complete
            if (c >= 0xC0) {
                int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
                return n - i >= need ? n : i;
            }
        }
        return n; // only continuation bytes (invalid input): send as is, the decoder replaces them
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
