package dev.baton.runner.machine;

import dev.baton.protocol.message.RunnerMessage;

/**
 * How much live output the runner streams (best effort; the full output always goes with the
 * terminal result). Output over the rate, or while the server has not acknowledged
 * {@code maxUnacked} of the job's messages (a slow server or link), or while disconnected, is not
 * sent: it is counted, and one {@code dropped} marker per stream says how many bytes the live log
 * is missing, sent as soon as sending is possible again.
 *
 * @param rateBytesPerSecond sustained live output per job (a token bucket)
 * @param burstBytes how much may be sent at once after a quiet spell
 * @param maxUnacked job messages sent on this connection and not yet acknowledged
 */
public record LogBudget(int rateBytesPerSecond, int burstBytes, int maxUnacked) {
    /** 64 KiB/s sustained, 256 KiB bursts, 32 messages in flight (with 16 KiB chunks: 512 KiB). */
    public static final LogBudget DEFAULT = new LogBudget(64 * 1024, 256 * 1024, 32);

    public LogBudget {
        if (rateBytesPerSecond < 1 || burstBytes < RunnerMessage.Log.MAX_TEXT_BYTES || maxUnacked < 1) {
            throw new IllegalArgumentException("log budget: rate >= 1 B/s, burst >= one chunk, maxUnacked >= 1");
        }
    }
}
