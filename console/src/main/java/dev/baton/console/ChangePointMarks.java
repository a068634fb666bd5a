package dev.baton.console;

import dev.baton.store.ChangePointFilter;
import dev.baton.store.Project;
import dev.baton.store.Store;
import dev.baton.store.StoredChangePoint;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The change points the metrics page's plot marks (docs/alerts.md, "Change points"; decision
 * 0056): the stored ones of one benchmark and measure (of a branch and testbed when chosen), each
 * with its series, where the new level starts, its commit range, size and interval, state and
 * the alert group it is triaged in.
 */
public final class ChangePointMarks {
    /** The most change points a plot marks (the newest). */
    static final int LIMIT = 200;

    /**
     * One mark: its series ("branch · testbed"), the first point of the new level ({@code at}),
     * the commit range ({@code previousHash} exclusive to {@code hash}), the change and its
     * interval as percentages, the p-value, the state, and the group's anchor on the alerts page
     * (null when no alert raised it).
     */
    public record Mark(
            String uuid,
            String series,
            Instant at,
            String hash,
            String previousHash,
            String range,
            String change,
            String interval,
            double pValue,
            String state,
            String group,
            String groupHref) {}

    private final Store store;

    ChangePointMarks(Store store) {
        this.store = store;
    }

    List<Mark> of(Project project, String benchmark, String measure, String branch, String testbed) {
        return store
                .alerts()
                .changePoints()
                .changePoints(new ChangePointFilter(
                        project.id(), branch, testbed, benchmark, measure, null, null, null, LIMIT))
                .stream()
                .map(c -> mark(project, c))
                .toList();
    }

    private static Mark mark(Project project, StoredChangePoint c) {
        return new Mark(
                c.uuid(),
                c.branch() + " · " + c.testbed(),
                c.startAt(),
                c.hash(),
                c.previousHash(),
                range(c.previousHash(), c.hash()),
                percent(c.change()),
                percent(c.changeLow()) + " to " + percent(c.changeHigh()),
                c.pValue(),
                c.state(),
                c.groupUuid(),
                c.groupUuid() == null
                        ? null
                        : "/console/projects/" + project.slug().value() + "/alerts#group-" + c.groupUuid());
    }

    /** "a1b2c3d..e4f5a6b" as git writes a range (exclusive start), or the one end known. */
    static String range(String previous, String hash) {
        if (hash == null) return previous == null ? "—" : "after " + shorten(previous);
        return previous == null ? shorten(hash) : shorten(previous) + ".." + shorten(hash);
    }

    private static String shorten(String hash) {
        return hash.length() > 7 ? hash.substring(0, 7) : hash;
    }

    static String percent(double fraction) {
        return String.format(Locale.ROOT, "%+.1f %%", fraction * 100);
    }
}
