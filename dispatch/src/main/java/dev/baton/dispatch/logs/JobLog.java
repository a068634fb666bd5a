package dev.baton.dispatch.logs;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The log of one job on this server node: the entries its runner streamed (text kept for the
 * last {@link LiveLogs#TAIL_BYTES} / {@link LiveLogs#TAIL_ENTRIES}), and, once the job ended,
 * the rest of its stored output as further entries, so that the log is whole and a reader that
 * followed it live continues without a gap or a repeat.
 *
 * <p>Per attempt it counts how many bytes of each iteration's stdout and stderr the live entries
 * (and dropped markers) covered. Because every attempt's live entries are accepted only in order
 * (runner seq 1, 2, 3 …; after a gap the attempt's live log stops), those counts are exact
 * prefixes of what the runner captured, and the stored output beyond them is what no live entry
 * showed. Seq numbers are the server's own: entry i is seq i, across attempts.
 */
final class JobLog {
    /** What became of a runner's log message. */
    enum Appended {
        STORED,
        DUPLICATE,
        IGNORED
    }

    private record StreamKey(int iteration, LogStream stream) {}

    private static final class Attempt {
        final LeaseId lease;
        long lastRunnerSeq;
        boolean frozen;
        final Map<StreamKey, Long> covered = new HashMap<>();

        Attempt(LeaseId lease) {
            this.lease = lease;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<LogSpan> spans = new ArrayList<>();
    private final List<Attempt> attempts = new ArrayList<>();
    private final int tailBytes;
    private final int tailEntries;
    private final int maxEntries;
    /** Spans below this index have had their text evicted (or never had any). */
    private int evictedBelow;

    private long retainedBytes;
    private int retainedTexts;
    private long version;
    private boolean sealed;
    private String endStatus;
    private int finalAttempt = -1;
    private java.lang.ref.SoftReference<JobOutput> cachedOutput = new java.lang.ref.SoftReference<>(null);

    JobLog(int tailBytes, int tailEntries, int maxEntries) {
        this.tailBytes = tailBytes;
        this.tailEntries = tailEntries;
        this.maxEntries = maxEntries;
    }

    Appended append(LeaseId lease, RunnerMessage.Log m) {
        return append(lease, m, null);
    }

    /** @param at when the chunk arrived (null: no time), shown with its entry */
    Appended append(LeaseId lease, RunnerMessage.Log m, java.time.Instant at) {
        lock.lock();
        try {
            if (sealed) return Appended.IGNORED;
            Attempt a = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
            if (a == null || !a.lease.matches(lease)) {
                a = new Attempt(lease);
                attempts.add(a);
            }
            if (m.seq() <= a.lastRunnerSeq) return Appended.DUPLICATE;
            // A gap (a message lost with a broken connection, or an attempt first seen mid-way after
            // a restart) would make the byte counts wrong; the attempt's live log stops instead and
            // the stored output fills in when the job ends.
            if (a.frozen || m.seq() != a.lastRunnerSeq + 1 || spans.size() >= maxEntries) {
                a.frozen = true;
                a.lastRunnerSeq = m.seq();
                return Appended.IGNORED;
            }
            a.lastRunnerSeq = m.seq();
            StreamKey key = new StreamKey(m.iteration(), m.stream());
            long offset = a.covered.getOrDefault(key, 0L);
            long seq = spans.size() + 1L;
            int attemptIndex = attempts.size() - 1;
            if (m.marksDrop()) {
                spans.add(new LogSpan(seq, attemptIndex, m.iteration(), m.stream(), offset, 0, m.dropped(), null, at));
                a.covered.put(key, offset + m.dropped());
            } else {
                int bytes = Utf8Chunks.length(m.text());
                spans.add(new LogSpan(seq, attemptIndex, m.iteration(), m.stream(), offset, bytes, null, m.text(), at));
                a.covered.put(key, offset + bytes);
                retainedBytes += bytes;
                retainedTexts++;
                evict();
            }
            version++;
            changed.signalAll();
            return Appended.STORED;
        } finally {
            lock.unlock();
        }
    }

    /** Drops the oldest texts until the tail fits its bounds; their positions stay. */
    private void evict() {
        while ((retainedBytes > tailBytes || retainedTexts > tailEntries) && evictedBelow < spans.size()) {
            LogSpan s = spans.get(evictedBelow++);
            if (s.text != null) {
                retainedBytes -= s.length;
                retainedTexts--;
                s.text = null;
            }
        }
    }

    /** True once a runner's entries reached this log on this node (an attempt ran here), as opposed to a log only cut from stored output. */
    boolean wasLive() {
        lock.lock();
        try {
            return !attempts.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    boolean isSealed() {
        lock.lock();
        try {
            return sealed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The job ended: appends what of the final attempt's stored output no live entry covered, cut
     * into entries of at most {@code maxEntryBytes}. Idempotent; later appends are ignored.
     */
    void seal(String status, LeaseId finalLease, JobOutput output, int maxEntryBytes) {
        lock.lock();
        try {
            if (sealed) return;
            for (int i = attempts.size() - 1; i >= 0 && finalLease != null; i--) {
                if (attempts.get(i).lease.matches(finalLease)) {
                    finalAttempt = i;
                    break;
                }
            }
            Map<StreamKey, Long> covered = finalAttempt >= 0 ? attempts.get(finalAttempt).covered : Map.of();
            List<IterationResult> results = output == null || output.results() == null ? List.of() : output.results();
            for (int i = 0; i < results.size(); i++) {
                IterationResult r = results.get(i);
                for (LogStream stream : LogStream.values()) {
                    String text = stream == LogStream.STDOUT ? r.stdout() : r.stderr();
                    if (text == null || text.isEmpty()) continue;
                    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
                    long from = covered.getOrDefault(new StreamKey(i, stream), 0L);
                    if (from >= bytes.length) continue;
                    for (long[] c : Utf8Chunks.cut(bytes, (int) from, maxEntryBytes)) {
                        spans.add(new LogSpan(
                                spans.size() + 1L, LogSpan.STORED, i, stream, c[0], (int) (c[1] - c[0]), null, null));
                    }
                }
            }
            releaseStoredTexts(output);
            cachedOutput = new java.lang.ref.SoftReference<>(output);
            sealed = true;
            endStatus = status;
            version++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * An ended log holds only positions for text the stored output has byte for byte, so the
     * logs of ended jobs kept for readers cost little memory; it is cut again when read.
     */
    private void releaseStoredTexts(JobOutput output) {
        if (finalAttempt < 0) return;
        byte[][] stored = streamsOf(output);
        for (LogSpan s : spans) {
            if (s.attempt != finalAttempt || s.text == null) continue;
            byte[] source = source(stored, s.iteration, s.stream);
            if (source == null || s.offset + s.length > source.length) continue;
            if (java.util.Arrays.equals(
                    s.text.getBytes(StandardCharsets.UTF_8),
                    0,
                    s.length,
                    source,
                    (int) s.offset,
                    (int) s.offset + s.length)) {
                s.text = null;
                retainedBytes -= s.length;
                retainedTexts--;
            }
        }
    }

    /** A page of entries after {@code after}; see {@link LogPage}. */
    record Read(List<LogEntry> entries, long next, boolean complete, String endStatus, long version) {}

    Read read(long after, int maxEntries, long maxBytes, Supplier<JobOutput> output) {
        lock.lock();
        try {
            int index = (int) Math.min(Math.max(after, 0), spans.size());
            // While the job runs only the tail is served; evicted entries come back once it ended.
            if (!sealed) index = Math.max(index, evictedBelow);
            List<LogEntry> entries = new ArrayList<>();
            long bytes = 0;
            byte[][] stored = null;
            while (index < spans.size() && entries.size() < maxEntries && (entries.isEmpty() || bytes < maxBytes)) {
                LogSpan s = spans.get(index++);
                LogEntry e;
                if (s.dropped != null) {
                    // Once the job ended, the bytes the runner could not send live are in the final
                    // attempt's stored output: the marker's place shows them, so the log is whole.
                    String text = null;
                    if (sealed && s.attempt == finalAttempt) {
                        if (stored == null) stored = streams(output);
                        text = storedText(stored, s.iteration, s.stream, s.offset, s.offset + s.dropped);
                    }
                    e = text == null
                            ? new LogEntry(s.seq, s.stream, s.iteration, "", s.dropped, s.at)
                            : new LogEntry(s.seq, s.stream, s.iteration, text, null, s.at);
                } else if (s.text != null) {
                    e = new LogEntry(s.seq, s.stream, s.iteration, s.text, null, s.at);
                } else {
                    String text = null;
                    if (s.attempt == LogSpan.STORED || s.attempt == finalAttempt) {
                        if (stored == null) stored = streams(output);
                        byte[] source = source(stored, s.iteration, s.stream);
                        if (source != null && s.offset < source.length)
                            text = Utf8Chunks.slice(source, s.offset, s.offset + s.length);
                    }
                    // An earlier attempt's text is not in the stored output: say how much is missing.
                    e = text == null || text.isEmpty()
                            ? new LogEntry(s.seq, s.stream, s.iteration, "", (long) s.length, s.at)
                            : new LogEntry(s.seq, s.stream, s.iteration, text, null, s.at);
                }
                entries.add(e);
                bytes += e.text().length();
            }
            long next = entries.isEmpty()
                    ? Math.max(after, 0)
                    : entries.get(entries.size() - 1).seq();
            return new Read(entries, next, sealed && index >= spans.size(), endStatus, version);
        } finally {
            lock.unlock();
        }
    }

    /** Stored stdout/stderr as UTF-8 bytes per iteration: [2 * iteration] stdout, [2 * iteration + 1] stderr. */
    private byte[][] streams(Supplier<JobOutput> loader) {
        JobOutput output = cachedOutput.get();
        if (output == null) {
            output = loader.get();
            cachedOutput = new java.lang.ref.SoftReference<>(output);
        }
        return streamsOf(output);
    }

    private static byte[][] streamsOf(JobOutput output) {
        if (output == null || output.results() == null) return new byte[0][];
        byte[][] out = new byte[output.results().size() * 2][];
        for (int i = 0; i < output.results().size(); i++) {
            IterationResult r = output.results().get(i);
            out[2 * i] = r.stdout() == null ? null : r.stdout().getBytes(StandardCharsets.UTF_8);
            out[2 * i + 1] = r.stderr() == null ? null : r.stderr().getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    /** Bytes {@code [from, to)} of a stored stream as text, or null when the stored output does not hold them all. */
    private static String storedText(byte[][] stored, int iteration, LogStream stream, long from, long to) {
        byte[] source = source(stored, iteration, stream);
        if (source == null || to > source.length || from >= to) return null;
        return Utf8Chunks.slice(source, from, to);
    }

    private static byte[] source(byte[][] stored, int iteration, LogStream stream) {
        int i = 2 * iteration + (stream == LogStream.STDOUT ? 0 : 1);
        return i < stored.length ? stored[i] : null;
    }

    /** Waits until the log changes past {@code seenVersion}, or {@code max} passes, or {@link #poke()}. */
    void awaitChange(long seenVersion, Duration max) throws InterruptedException {
        lock.lock();
        try {
            long nanos = max.toNanos();
            while (version == seenVersion && nanos > 0) nanos = changed.awaitNanos(nanos);
        } finally {
            lock.unlock();
        }
    }

    /** Wakes waiting readers (the attempt ended, the server stops) so they look at the job again. */
    void poke() {
        lock.lock();
        try {
            version++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
