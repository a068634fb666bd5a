package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.StoredChangePoint;
import java.time.Instant;
import java.util.List;

/**
 * A stored change point (docs/alerts.md, "Change points"; decision 0056): the metric, branch and
 * testbed; the commit range ({@code previous_hash} exclusive to {@code hash}, the first commit of
 * the new level) and its reports; the means before and after, the relative change with its 95 %
 * interval, the p-value; its state ({@code current}, {@code moved} to {@code replaced_by},
 * {@code withdrawn}); the alert that raised it with its group and triage (absent when none did).
 */
public record ChangePointView(
        String uuid,
        String branch,
        String testbed,
        String benchmark,
        String measure,
        String threshold,
        String report,
        @JsonInclude(JsonInclude.Include.ALWAYS) String previousReport,
        @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
        @JsonInclude(JsonInclude.Include.ALWAYS) String previousHash,
        Instant at,
        String side,
        double before,
        double after,
        double change,
        List<Double> changeInterval,
        double pValue,
        String state,
        @JsonInclude(JsonInclude.Include.ALWAYS) String replacedBy,
        String alert,
        String group,
        AlertView.TriageView triage,
        String foundBy,
        String revisedBy,
        Instant created,
        Instant modified) {

    static ChangePointView of(StoredChangePoint c) {
        return new ChangePointView(
                c.uuid(),
                c.branch(),
                c.testbed(),
                c.benchmark(),
                c.measure(),
                c.thresholdUuid(),
                c.reportUuid(),
                c.previousReportUuid(),
                c.hash(),
                c.previousHash(),
                c.startAt(),
                c.side(),
                c.before(),
                c.after(),
                c.change(),
                List.of(c.changeLow(), c.changeHigh()),
                c.pValue(),
                c.state(),
                c.replacedByUuid(),
                c.alertUuid(),
                c.groupUuid(),
                c.alertUuid() == null ? null : AlertView.TriageView.of(c.triage()),
                c.foundByReportUuid(),
                c.revisedByReportUuid(),
                c.created(),
                c.modified());
    }
}
