package dev.baton.alerts;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.AlertGroup;
import dev.baton.store.StoredChangePoint;
import java.util.List;

/**
 * The body a webhook receives when a later judgement moved or withdrew change points that had
 * raised alerts (docs/alerts.md, "Webhooks"): one per alert group, event and judgement, however
 * many metrics of the group it concerns. {@code report} is the judged report whose judgement did
 * it; {@code changePoints} are the group's change points it moved (each with its
 * {@code replacement}, the change point it became, which keeps the alert) or withdrew.
 */
public record ChangePointEvent(
        String event, String project, String report, Group group, List<ChangePoint> changePoints) {

    /** The group: its commit range ({@code previous_hash} exclusive to {@code hash}), size and triage when sent. */
    public record Group(
            String uuid,
            String report,
            String branch,
            String testbed,
            @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
            @JsonInclude(JsonInclude.Include.ALWAYS) String previousHash,
            int alerts,
            String triage) {}

    /** A change point as the API shows its main fields ({@code GET …/change-points/{change_point}} has the rest). */
    public record ChangePoint(
            String uuid,
            String benchmark,
            String measure,
            String state,
            @JsonInclude(JsonInclude.Include.ALWAYS) String hash,
            @JsonInclude(JsonInclude.Include.ALWAYS) String previousHash,
            double before,
            double after,
            double change,
            double pValue,
            String alert,
            ChangePoint replacement) {

        static ChangePoint of(StoredChangePoint c, ChangePoint replacement) {
            return new ChangePoint(
                    c.uuid(),
                    c.benchmark(),
                    c.measure(),
                    c.state(),
                    c.hash(),
                    c.previousHash(),
                    c.before(),
                    c.after(),
                    c.change(),
                    c.pValue(),
                    c.alertUuid(),
                    replacement);
        }
    }

    /**
     * The event for {@code group}: of its change points {@code all}, those in the event's state
     * that the judgement of {@code reportUuid} revised last (a moved or withdrawn change point is
     * not revised again, so this is what that judgement did, whenever it is sent).
     */
    public static ChangePointEvent of(
            String event, String projectUuid, String reportUuid, AlertGroup group, List<StoredChangePoint> all) {
        String state = event.equals(dev.baton.store.WebhookDelivery.CHANGE_POINT_MOVED)
                ? StoredChangePoint.MOVED
                : StoredChangePoint.WITHDRAWN;
        List<ChangePoint> points = all.stream()
                .filter(c -> c.state().equals(state) && reportUuid.equals(c.revisedByReportUuid()))
                .map(c -> ChangePoint.of(
                        c,
                        c.replacedByUuid() == null
                                ? null
                                : all.stream()
                                        .filter(r -> r.uuid().equals(c.replacedByUuid()))
                                        .findFirst()
                                        .map(r -> ChangePoint.of(r, null))
                                        .orElse(null)))
                .toList();
        return new ChangePointEvent(
                event,
                projectUuid,
                reportUuid,
                new Group(
                        group.uuid(),
                        group.reportUuid(),
                        group.branch(),
                        group.testbed(),
                        group.hash(),
                        group.previousHash(),
                        group.alerts().size(),
                        group.triage().state()),
                points);
    }
}
