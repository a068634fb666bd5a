package dev.baton.store;

/**
 * Which stored change points of a project to list; a null field does not filter. Newest first
 * (by id), {@code limit} at most, before the change point with id {@code beforeId} when set.
 */
public record ChangePointFilter(
        long projectId,
        String branch,
        String testbed,
        String benchmark,
        String measure,
        String state,
        String groupUuid,
        Long beforeId,
        int limit) {}
