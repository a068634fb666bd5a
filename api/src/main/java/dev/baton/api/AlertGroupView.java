package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.AlertGroup;
import dev.baton.store.StoredChangePoint;
import java.time.Instant;
import java.util.List;

/**
 * An alert group (docs/alerts.md, "Triage and groups"): the alerts one report's judgement raised,
 * its branch, testbed and commit range ({@code previous_hash} exclusive to {@code hash}), and the
 * group's triage ({@code mixed} when its alerts differ), and the change points whose alerts are in
 * it (docs/alerts.md, "Change points").
 */
public record AlertGroupView(
        String uuid,
        String report,
        String branch,
        String testbed,
        @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
        @JsonInclude(JsonInclude.Include.ALWAYS) String previousHash,
        Instant created,
        AlertView.TriageView triage,
        List<AlertView> alerts,
        List<ChangePointView> changePoints) {

    /** The group with the change points whose alerts are in it. */
    static AlertGroupView of(AlertGroup g, List<StoredChangePoint> changePoints) {
        return new AlertGroupView(
                g.uuid(),
                g.reportUuid(),
                g.branch(),
                g.testbed(),
                g.hash(),
                g.previousHash(),
                g.created(),
                AlertView.TriageView.of(g.triage()),
                g.alerts().stream().map(AlertView::of).toList(),
                changePoints.stream()
                        .filter(c -> g.uuid().equals(c.groupUuid()))
                        .map(ChangePointView::of)
                        .toList());
    }
}
