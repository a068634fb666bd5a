package dev.baton.store;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What one judgement's revisions did to change points that had raised an alert (docs/alerts.md,
 * "Webhooks"): the alerts whose change point moved and those whose change point was withdrawn.
 * The judgement queues one webhook event per alert group and kind from it, so a change across a
 * hundred metrics that moves is one {@code change_point.moved}, not a hundred. Change points
 * without an alert are not collected: no receiver was told of them.
 */
final class ChangePointRevisions {
    final Set<Long> movedAlerts = new LinkedHashSet<>();
    final Set<Long> withdrawnAlerts = new LinkedHashSet<>();

    void moved(Long alertId) {
        if (alertId != null) movedAlerts.add(alertId);
    }

    void withdrawn(Long alertId) {
        if (alertId != null) withdrawnAlerts.add(alertId);
    }
}
