package dev.baton.server.store;

/**
 * Opt-in retries of a job that started and then failed (brief §1; OJS field names). The default
 * is one attempt: a failed benchmark is signal. Requeues of jobs that never started are separate
 * and never count here.
 */
public record RetryPolicy(int maxAttempts, int backoffSeconds, boolean retryWhenRunnerLost) {
    public static final RetryPolicy NONE = new RetryPolicy(1, 0, false);
}
