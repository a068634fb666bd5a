package dev.baton.store;

import java.util.List;

/**
 * What a {@code change_point} threshold found in a metric's window when judging a report: the
 * window's reports oldest first (the judged report last) and the change points in it. The store
 * revises the series' stored change points whose first report is in the window against them
 * (docs/alerts.md, "Change points"): the same start stays current, one found within
 * {@code sameWithin} points of a stored one moves it, a stored one not found is withdrawn.
 */
public record ChangePointWindow(List<Long> reportIds, List<FoundChangePoint> found, int sameWithin) {
    public ChangePointWindow {
        reportIds = List.copyOf(reportIds);
        found = List.copyOf(found);
    }
}
