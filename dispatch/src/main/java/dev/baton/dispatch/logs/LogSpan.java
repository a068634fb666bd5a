package dev.baton.dispatch.logs;

import dev.baton.protocol.message.LogStream;

/**
 * Where one log entry's text lies in its stream: bytes {@code [offset, offset + length)} of the
 * UTF-8 stdout or stderr of one iteration. Live entries keep their text until the tail evicts it;
 * after the job ended, any entry without text is cut again from the stored output, which is why
 * the position is kept. {@code attempt} is the index of the attempt that sent it, or
 * {@link #STORED} for entries made from the stored output.
 */
final class LogSpan {
    static final int STORED = -1;

    final long seq;
    final int attempt;
    final int iteration;
    final LogStream stream;
    final long offset;
    final int length;
    final Long dropped;
    /** When the runner's chunk arrived; null for entries cut from the stored output. */
    final java.time.Instant at;
    /** Null once evicted from the tail, and always for entries cut from the stored output. */
    String text;

    LogSpan(
            long seq,
            int attempt,
            int iteration,
            LogStream stream,
            long offset,
            int length,
            Long dropped,
            String text) {
        this(seq, attempt, iteration, stream, offset, length, dropped, text, null);
    }

    LogSpan(
            long seq,
            int attempt,
            int iteration,
            LogStream stream,
            long offset,
            int length,
            Long dropped,
            String text,
            java.time.Instant at) {
        this.at = at;
        this.seq = seq;
        this.attempt = attempt;
        this.iteration = iteration;
        this.stream = stream;
        this.offset = offset;
        this.length = length;
        this.dropped = dropped;
        this.text = text;
    }
}
