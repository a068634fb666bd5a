package dev.baton.runner.executor;

import dev.baton.protocol.id.JobUuid;

/**
 * Something a previous agent left running for a job — a process group, a cgroup, a container —
 * that {@link Executor#sweep()} found and stopped at start. The agent reports the job as lost
 * and says what was killed.
 *
 * @param job the job it belonged to
 * @param what a short description for the job's error and the log, e.g. "process group 4242"
 */
public record Leftover(JobUuid job, String what) {}
