package dev.baton.server.store;

import dev.baton.protocol.model.JobConfig;

/** The job half of a runner-mode run, inserted with its report in one transaction. */
public record NewJob(long specId, String sourceIp, JobConfig config, int timeout, int priority, RetryPolicy retry) {}
