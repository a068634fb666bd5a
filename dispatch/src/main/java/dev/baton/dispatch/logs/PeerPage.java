package dev.baton.dispatch.logs;

import java.util.List;

/**
 * What the node holding a job's live log answers another node ({@code GET /cluster/jobs/{job}/logs}):
 * the entries after the asked seq in its own numbering, the next seq, whether the log is whole,
 * the job's status and the status the log was completed with ({@code end}).
 */
record PeerPage(String status, List<LogEntry> entries, long next, boolean complete, String endStatus) {}
