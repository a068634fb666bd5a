package dev.baton.server.store;

import java.time.Instant;

/** A report to insert: direct mode carries results and real times; runner mode placeholders. */
public record NewReport(long projectId, String branch, String testbed, String adapter, Instant startTime, Instant endTime, String results) {}
