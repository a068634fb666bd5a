package dev.baton.alerts;

import dev.baton.store.ChangePointWindow;
import dev.baton.store.FoundChangePoint;
import dev.baton.store.HistoryValue;
import dev.baton.store.JudgedReport;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@code change_point} threshold makes of one value (docs/alerts.md, "Change points";
 * decision 0056): the window (the metric's history, oldest first, then the value) replayed
 * through {@link ChangePoints.Online}, the change point the value revealed (its alert) and every
 * change point the detector holds after it, each with its reports and commit range, for the
 * store to revise the stored ones.
 */
record ChangePointJudgement(ChangePoints.ChangePoint revealed, ChangePointWindow window) {

    /** {@code history} oldest first; {@code report} is the judged one, whose value comes last. */
    static ChangePointJudgement of(
            List<HistoryValue> history, JudgedReport report, double value, Double lower, Double upper) {
        ChangePoints.Online online = new ChangePoints.Online(ChangePoints.MAX_P_VALUE, lower, upper);
        for (HistoryValue v : history) online.add(v.value());
        ChangePoints.ChangePoint revealed = online.add(value);
        List<Long> reportIds = new ArrayList<>(history.size() + 1);
        for (HistoryValue v : history) reportIds.add(v.reportId());
        reportIds.add(report.id());
        List<FoundChangePoint> found = new ArrayList<>();
        for (ChangePoints.ChangePoint c : online.changePoints()) {
            // A level of 0 has no relative change to store; nor can it be said in JSON.
            if (!Double.isFinite(c.change()) || c.index() < 1) continue;
            HistoryValue before = history.get(c.index() - 1);
            boolean last = c.index() == history.size();
            found.add(new FoundChangePoint(
                    c.index(),
                    last ? report.id() : history.get(c.index()).reportId(),
                    before.reportId(),
                    last ? report.hash() : history.get(c.index()).hash(),
                    before.hash(),
                    last ? report.endTime() : history.get(c.index()).at(),
                    c.before(),
                    c.after(),
                    c.change(),
                    c.changeLow(),
                    c.changeHigh(),
                    c.pValue(),
                    revealed != null && c.index() == revealed.index()));
        }
        return new ChangePointJudgement(revealed, new ChangePointWindow(reportIds, found, ChangePoints.SAME_WITHIN));
    }
}
