package dev.baton.store;

import java.util.List;
import java.util.Optional;

/**
 * Alert groups and triage (docs/alerts.md, "Triage and groups"): one change across many metrics
 * of one commit range is one group. Reached through {@link Alerts#groups()}.
 */
public interface AlertGroups {
    /** Sets one alert's triage; empty when the project has no such alert. */
    Optional<Alert> triageAlert(long projectId, String uuid, Triage triage);

    /** The project's alert groups with their alerts, newest first. */
    List<AlertGroup> list(AlertGroupFilter filter);

    Optional<AlertGroup> find(long projectId, String uuid);

    /** Sets the triage of every alert of the group in one transaction; empty when there is no such group. */
    Optional<AlertGroup> triage(long projectId, String uuid, Triage triage);
}
