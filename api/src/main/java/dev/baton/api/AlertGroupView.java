package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.AlertGroup;
import java.time.Instant;
import java.util.List;

/**
 * An alert group (docs/alerts.md, "Triage and groups"): the alerts one report's judgement raised,
 * its branch, testbed and commit range ({@code previous_hash} exclusive to {@code hash}), and the
 * group's triage ({@code mixed} when its alerts differ).
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
        List<AlertView> alerts) {

    static AlertGroupView of(AlertGroup g) {
        return new AlertGroupView(
                g.uuid(),
                g.reportUuid(),
                g.branch(),
                g.testbed(),
                g.hash(),
                g.previousHash(),
                g.created(),
                AlertView.TriageView.of(g.triage()),
                g.alerts().stream().map(AlertView::of).toList());
    }
}
