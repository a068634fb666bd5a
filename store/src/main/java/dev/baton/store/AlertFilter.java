package dev.baton.store;

/** Which alerts of a project to list; a null field does not filter. Newest first, {@code limit} at most, before the alert with id {@code beforeId} when set (paging). */
public record AlertFilter(
        long projectId, String status, String branch, String benchmark, String reportUuid, Long beforeId, int limit) {}
