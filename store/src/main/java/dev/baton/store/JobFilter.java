package dev.baton.store;

import dev.baton.protocol.job.JobStatus;

/** Filters and page of a job listing; null fields do not filter. Ordered newest first. */
public record JobFilter(JobStatus status, Long specId, Long runnerId, int limit, int offset) {}
