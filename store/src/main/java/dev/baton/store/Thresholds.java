package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** A project's thresholds (docs/alerts.md, "Thresholds"). Reached through {@link Alerts#thresholds()}. */
public interface Thresholds {
    Threshold create(long projectId, ThresholdRule rule, Instant now);

    /** The project's thresholds that are not deleted, oldest first. */
    List<Threshold> list(long projectId);

    /** A threshold of the project that is not deleted. */
    Optional<Threshold> find(long projectId, String uuid);

    /** Replaces the rule; empty when there is no such (undeleted) threshold. */
    Optional<Threshold> update(long projectId, String uuid, ThresholdRule rule, Instant now);

    /** Marks it deleted; false when there was none. */
    boolean delete(long projectId, String uuid, Instant now);

    /** Measures the project's judged metrics have used (to tell a typo from a measure). */
    List<String> measuresSeen(long projectId);
}
