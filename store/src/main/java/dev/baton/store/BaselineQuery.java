package dev.baton.store;

import java.time.Instant;

/**
 * One metric's history for a baseline: judged metrics of the project, branch, testbed, benchmark
 * and measure (of {@code specId} when set) that ended at or before {@code until}, except those of
 * report {@code excludeReport}, newest first, no older than {@code since} (null: any age), at most
 * {@code limit} of them (null: all).
 */
public record BaselineQuery(
        long projectId,
        String branch,
        String testbed,
        Long specId,
        String benchmark,
        String measure,
        Instant until,
        long excludeReport,
        Instant since,
        Integer limit) {}
