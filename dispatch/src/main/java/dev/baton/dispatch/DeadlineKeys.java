package dev.baton.dispatch;

import dev.baton.protocol.id.JobUuid;

/** Names of the deadlines kept in {@link Deadlines}, one per kind and subject. */
final class DeadlineKeys {
    private DeadlineKeys() {}

    /** A waiting runner's poll timeout ({@code no_job}). */
    static String poll(long runnerId) {
        return "poll:" + runnerId;
    }

    /** A claimed job's acceptance window (until {@code running}). */
    static String accept(JobUuid job) {
        return "accept:" + job;
    }

    /** A running job's hard timeout (timeout + grace). */
    static String hard(JobUuid job) {
        return "hard:" + job;
    }

    /** The check after a runner's connection dropped with this job in flight. */
    static String lost(JobUuid job) {
        return "lost:" + job;
    }

    /** When a retried job's backoff ends and it may be claimed again. */
    static String retry(JobUuid job) {
        return "retry:" + job;
    }

    /** When a pending job with a queue timeout fails for waiting too long. */
    static String queue(JobUuid job) {
        return "queue:" + job;
    }

    /** How long a runner told to cancel has to answer {@code canceled}. */
    static String cancel(JobUuid job) {
        return "cancel:" + job;
    }
}
