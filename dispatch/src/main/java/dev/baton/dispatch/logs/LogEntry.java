package dev.baton.dispatch.logs;

import dev.baton.protocol.message.LogStream;
import java.time.Instant;

/**
 * One entry of a job's log as the API shows it. {@code seq} is the server's number for it (from 1,
 * per job, never reused); a marker has {@code dropped} bytes that are not in the log and empty text.
 * {@code at} is when the server received the runner's chunk (absent for text cut from the stored
 * output, which keeps no times).
 */
public record LogEntry(long seq, LogStream stream, int iteration, String text, Long dropped, Instant at) {
    public LogEntry(long seq, LogStream stream, int iteration, String text, Long dropped) {
        this(seq, stream, iteration, text, dropped, null);
    }
}
