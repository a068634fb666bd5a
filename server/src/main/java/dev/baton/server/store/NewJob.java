package dev.baton.server.store;

import dev.baton.protocol.model.JobConfig;

/**
 * The job half of a runner-mode run, inserted with its report in one transaction.
 * {@code queueTimeout} is the effective bound in seconds (the job's own, else its spec's), or null.
 */
public record NewJob(long specId, String sourceIp, JobConfig config, int timeout, int priority, RetryPolicy retry, Integer queueTimeout) {
    public NewJob(long specId, String sourceIp, JobConfig config, int timeout, int priority, RetryPolicy retry) {
        this(specId, sourceIp, config, timeout, priority, retry, null);
    }
}
