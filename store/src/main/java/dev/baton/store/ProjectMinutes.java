package dev.baton.store;

/** Minutes of run time billed to one project's jobs within a period (see {@link JobLiveness#billedMinutes(long, java.time.Instant, java.time.Instant)}). */
public record ProjectMinutes(long projectId, long minutes) {}
