package dev.baton.store;

import java.time.Instant;

/**
 * Where a branch started: its runs' baselines continue with {@code startBranch}'s history up to
 * {@code until} (the start report's end, or when the start point was set).
 */
public record StartPoint(long projectId, String branch, String startBranch, Long startReportId, Instant until) {}
