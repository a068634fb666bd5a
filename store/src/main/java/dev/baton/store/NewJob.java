package dev.baton.store;

import dev.baton.protocol.model.JobConfig;

/**
 * The job half of a runner-mode run, inserted with its report in one transaction.
 * {@code queueTimeout} is the effective bound in seconds (the job's own, else its spec's), or null.
 * {@code submitter} is the user and token that submitted it, null for the admin token.
 * {@code labels} are the runner labels it requires and prefers (docs/scheduling.md).
 * {@code canaryRunnerId} makes it the canary of that quarantined runner (docs/scheduling.md,
 * "Canary release"): only that runner claims it; null for every other job.
 */
public record NewJob(
        long specId,
        String sourceIp,
        JobConfig config,
        int timeout,
        int priority,
        RetryPolicy retry,
        Integer queueTimeout,
        Submitter submitter,
        JobLabels labels,
        Long canaryRunnerId) {
    public NewJob {
        labels = labels == null ? JobLabels.NONE : labels;
    }

    public NewJob(
            long specId,
            String sourceIp,
            JobConfig config,
            int timeout,
            int priority,
            RetryPolicy retry,
            Integer queueTimeout,
            Submitter submitter,
            JobLabels labels) {
        this(specId, sourceIp, config, timeout, priority, retry, queueTimeout, submitter, labels, null);
    }

    public NewJob(
            long specId,
            String sourceIp,
            JobConfig config,
            int timeout,
            int priority,
            RetryPolicy retry,
            Integer queueTimeout,
            Submitter submitter) {
        this(specId, sourceIp, config, timeout, priority, retry, queueTimeout, submitter, JobLabels.NONE);
    }

    /** A user's token that submitted a job ({@code tokenId} null when unknown). */
    public record Submitter(long userId, Long tokenId) {}

    public NewJob(
            long specId,
            String sourceIp,
            JobConfig config,
            int timeout,
            int priority,
            RetryPolicy retry,
            Integer queueTimeout) {
        this(specId, sourceIp, config, timeout, priority, retry, queueTimeout, null);
    }

    public NewJob(long specId, String sourceIp, JobConfig config, int timeout, int priority, RetryPolicy retry) {
        this(specId, sourceIp, config, timeout, priority, retry, null, null);
    }
}
