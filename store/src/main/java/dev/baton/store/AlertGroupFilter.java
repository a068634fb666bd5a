package dev.baton.store;

/**
 * Which alert groups of a project to list; a null field does not filter. {@code triage}: groups
 * with at least one alert in that state. Newest first, {@code limit} at most, before the group
 * with id {@code beforeId} when set (paging).
 */
public record AlertGroupFilter(
        long projectId, String triage, String branch, String reportUuid, Long beforeId, int limit) {}
