package dev.baton.store;

import java.util.List;
import java.util.Optional;

/**
 * Stored change points (docs/alerts.md, "Change points"; decision 0056), reached through
 * {@link Alerts#changePoints()}. They are written by {@link Alerts#recordJudgement} in
 * the judgement's transaction, so a report judged on two nodes revises them once.
 */
public interface StoredChangePoints {

    /** The project's change points matching the filter, newest first. */
    List<StoredChangePoint> changePoints(ChangePointFilter filter);

    Optional<StoredChangePoint> findChangePoint(long projectId, String uuid);

    /** The change points whose alerts are in these groups (by group id), oldest first. */
    List<StoredChangePoint> ofGroups(List<Long> groupIds);
}
