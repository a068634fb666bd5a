package dev.baton.server.logs;

import dev.baton.protocol.message.LogStream;

/**
 * One entry of a job's log as the API shows it. {@code seq} is the server's number for it (from 1,
 * per job, never reused); a marker has {@code dropped} bytes that are not in the log and empty text.
 */
public record LogEntry(long seq, LogStream stream, int iteration, String text, Long dropped) {}
