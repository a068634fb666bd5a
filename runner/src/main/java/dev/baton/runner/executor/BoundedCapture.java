package dev.baton.runner.executor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Drains a stream on its own thread, keeping at most {@code limit} bytes; the rest is read and
 * counted (so the workload never blocks on a full pipe) and reported by a marker at the end.
 */
final class BoundedCapture {
    static final String MARKER = "\n[baton: output truncated, %d bytes dropped]\n";

    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final int limit;
    private long dropped;
    private final Thread thread;
    private final Tap tap;

    /** Sees the kept bytes as they are read (for live logs); must not block. */
    @FunctionalInterface
    interface Tap {
        Tap NONE = (bytes, offset, length) -> {};

        void kept(byte[] bytes, int offset, int length);
    }

    BoundedCapture(InputStream in, int limit, String name) {
        this(in, limit, name, Tap.NONE);
    }

    BoundedCapture(InputStream in, int limit, String name, Tap tap) {
        this.limit = limit;
        this.tap = tap;
        this.thread = Thread.ofPlatform().daemon().name(name).start(() -> drain(in));
    }

    private void drain(InputStream in) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                int keep;
                synchronized (this) {
                    int room = limit - kept.size();
                    keep = Math.max(0, Math.min(room, n));
                    kept.write(buf, 0, keep);
                    dropped += n - keep;
                }
                // Only kept bytes stream live, so the live log is always a prefix of the stored output.
                if (keep > 0) tap.kept(buf, 0, keep);
            }
        } catch (IOException e) {
            // The stream closes when the process ends; whatever was read is kept.
        }
    }

    /** Waits for the stream to end (the process and its children exited), then returns the text. */
    String await() {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return text();
    }

    /** Waits up to {@code millis}; children that keep the pipe open must not hold up a result. */
    String await(long millis) {
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return text();
    }

    synchronized String text() {
        String s = kept.toString(StandardCharsets.UTF_8);
        return dropped == 0 ? s : s + MARKER.formatted(dropped);
    }
}
