package dev.baton.dispatch.logs;

import dev.baton.protocol.id.JobUuid;
import java.util.List;

/**
 * {@code GET /v0/projects/{p}/jobs/{j}/logs}: the entries after the asked seq, the seq to pass
 * as {@code after} next time, and whether the job has ended and nothing more will come.
 */
public record LogPage(JobUuid job, String status, List<LogEntry> entries, long next, boolean complete) {}
