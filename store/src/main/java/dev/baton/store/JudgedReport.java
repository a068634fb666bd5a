package dev.baton.store;

import java.time.Instant;

/**
 * A processed report as judging needs it: where it ran ({@code specId} null for a direct run),
 * when it ended (the order of the history), its results column and whether it was judged already.
 */
public record JudgedReport(
        long id,
        String uuid,
        long projectId,
        String branch,
        String testbed,
        Long specId,
        String hash,
        Instant endTime,
        String results,
        boolean judged) {}
