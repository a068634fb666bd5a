package dev.baton.store;

/**
 * A metric's history: a project's judged metrics of one benchmark and measure, of one branch and
 * testbed when given (null: all), newest first, at most {@code limit}, before metric id
 * {@code beforeId} when set (paging).
 */
public record HistoryQuery(
        long projectId, String benchmark, String measure, String branch, String testbed, Long beforeId, int limit) {}
