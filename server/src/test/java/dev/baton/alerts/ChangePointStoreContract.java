package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metric;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Alert;
import dev.baton.store.AlertGroup;
import dev.baton.store.Alerts;
import dev.baton.store.ChangePointFilter;
import dev.baton.store.ChangePointWindow;
import dev.baton.store.FoundChangePoint;
import dev.baton.store.JudgedReport;
import dev.baton.store.MetricJudgement;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Store;
import dev.baton.store.StoredChangePoint;
import dev.baton.store.Threshold;
import dev.baton.store.ThresholdRule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Stored change points on a real store, both dialects (docs/alerts.md, "Change points"; decision
 * 0056): what a judgement finds is stored with its commit range, size, interval and p-value; a
 * later judgement keeps, moves or withdraws it; its alert joins the group of the report where the
 * change starts, so one change across metrics revealed by different reports is one group; a
 * report judged by two judges at once (two nodes) stores one change point.
 */
abstract class ChangePointStoreContract {
    static final Instant T0 = Instant.parse("2026-05-01T10:00:00Z");
    static final double[] STEP = {10, 10.1, 9.9, 10, 10.2, 9.8, 12, 12.1, 11.9};

    Store store;
    Alerts alerts;
    Project project;
    Threshold threshold;
    int reports;
    final List<Report> made = new ArrayList<>();

    abstract Store openStore();

    @BeforeEach
    void open() {
        store = openStore();
        alerts = store.alerts();
        Organization org = store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, T0);
        project = store.organizations().createProject(org.id(), "P", Slug.of("p"), T0);
        threshold = alerts.createThreshold(
                project.id(),
                ThresholdRules.check(new ThresholdRule(
                        null, "box", null, "latency", null, "change_point", null, null, null, null, -1)),
                T0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** A direct run on main of commit c&lt;n&gt;: each benchmark's latency as given, an hour after the previous one. */
    Report run(Map<String, Double> latencies) {
        Instant end = T0.plus(Duration.ofHours(++reports));
        Map<String, Map<String, Metric>> benchmarks = new LinkedHashMap<>();
        latencies.forEach((b, v) -> benchmarks.put(b, Map.of("latency", Metric.of(v))));
        String results = ReportResults.of(List.of(new IterationResults(0, new Metrics(benchmarks), null)))
                .toJson();
        Report r = store.runs()
                .createReport(
                        new NewReport(project.id(), "main", "box", "json", end.minusSeconds(1), end, results), end);
        alerts.setReportHash(r.id(), "c" + reports);
        made.add(r);
        return r;
    }

    List<StoredChangePoint> all() {
        return alerts.changePoints()
                .changePoints(new ChangePointFilter(project.id(), null, null, null, null, null, null, null, 100));
    }

    @Test
    void aRevealedChangeIsStoredWithItsRangeSizeIntervalAndPValueInTheGroupOfItsFirstReport() {
        Judge judge = new Judge(alerts, Clock.fixed(T0, ZoneOffset.UTC));
        List<Alert> raised = List.of();
        for (double v : STEP)
            raised = judge.judge(run(Map.of("sort", v, "scan", 2 * v)).id());

        assertThat(raised).hasSize(2);
        List<StoredChangePoint> found = all();
        assertThat(found).hasSize(2);
        Report first = made.get(6);
        for (StoredChangePoint c : found) {
            assertThat(c.state()).isEqualTo(StoredChangePoint.CURRENT);
            assertThat(c.reportUuid()).isEqualTo(first.uuid().toString());
            assertThat(c.previousReportUuid()).isEqualTo(made.get(5).uuid().toString());
            assertThat(c.hash()).isEqualTo("c7");
            assertThat(c.previousHash()).isEqualTo("c6");
            assertThat(c.side()).isEqualTo("upper");
            double scale = c.benchmark().equals("scan") ? 2 : 1;
            assertThat(c.before()).isCloseTo(10 * scale, within(1e-9));
            assertThat(c.after()).isCloseTo(12 * scale, within(1e-9));
            assertThat(c.change()).isCloseTo(0.2, within(1e-9));
            assertThat(c.changeLow()).isLessThan(0.2).isGreaterThan(0.1);
            assertThat(c.changeHigh()).isGreaterThan(0.2).isLessThan(0.3);
            assertThat(c.pValue()).isLessThan(0.001).isPositive();
            assertThat(c.thresholdUuid()).isEqualTo(threshold.uuid());
            assertThat(c.foundByReportUuid()).isEqualTo(made.get(8).uuid().toString());
            assertThat(raised.stream().map(Alert::uuid)).contains(c.alertUuid());
        }
        // Both alerts, raised by the ninth report, are in the group of the seventh: the change's range.
        assertThat(raised.get(0).groupUuid()).isEqualTo(raised.get(1).groupUuid());
        AlertGroup group =
                alerts.findAlertGroup(project.id(), raised.get(0).groupUuid()).orElseThrow();
        assertThat(group.reportUuid()).isEqualTo(first.uuid().toString());
        assertThat(group.hash()).isEqualTo("c7");
        assertThat(group.previousHash()).isEqualTo("c6");
        assertThat(alerts.changePoints().ofGroups(List.of(group.id()))).hasSize(2);
        assertThat(found.getFirst().groupUuid()).isEqualTo(group.uuid());

        // Later points on the same level keep it current, revised by the newest judgement.
        Report later = run(Map.of("sort", 12.0, "scan", 24.0));
        judge.judge(later.id());
        assertThat(all()).hasSize(2).allSatisfy(c -> {
            assertThat(c.state()).isEqualTo(StoredChangePoint.CURRENT);
            assertThat(c.revisedByReportUuid()).isEqualTo(later.uuid().toString());
        });
        // Filters and one by uuid.
        assertThat(alerts.changePoints()
                        .changePoints(new ChangePointFilter(
                                project.id(), "main", "box", "scan", "latency", "current", null, null, 100)))
                .singleElement()
                .satisfies(c -> assertThat(c.after()).isCloseTo(24, within(1e-9)));
        assertThat(alerts.changePoints()
                        .changePoints(new ChangePointFilter(
                                project.id(), null, null, null, null, "withdrawn", null, null, 100)))
                .isEmpty();
        assertThat(alerts.changePoints()
                        .findChangePoint(project.id(), found.getFirst().uuid()))
                .get()
                .extracting(StoredChangePoint::benchmark)
                .isEqualTo(found.getFirst().benchmark());
        assertThat(alerts.changePoints()
                        .findChangePoint(project.id() + 1, found.getFirst().uuid()))
                .isEmpty();
    }

    @Test
    void twoJudgesOfOneReportStoreOneChangePoint() throws Exception {
        Judge judge = new Judge(alerts, Clock.fixed(T0, ZoneOffset.UTC));
        for (int i = 0; i < STEP.length - 1; i++)
            judge.judge(run(Map.of("sort", STEP[i])).id());
        Report third = run(Map.of("sort", STEP[STEP.length - 1]));
        Judge other = new Judge(alerts, Clock.fixed(T0, ZoneOffset.UTC));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Callable<List<Alert>> a = () -> judge.judge(third.id());
            Callable<List<Alert>> b = () -> other.judge(third.id());
            List<Future<List<Alert>>> both = pool.invokeAll(List.of(a, b));
            int alertsRaised = both.get(0).get().size() + both.get(1).get().size();
            assertThat(alertsRaised).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(all()).singleElement().satisfies(c -> assertThat(c.state()).isEqualTo("current"));
    }

    /** What judging {@code report} found for benchmark "sort": change points at these window indexes. */
    JudgedReport judged(Report r) {
        return alerts.processedReport(r.id()).orElseThrow();
    }

    FoundChangePoint at(int index, boolean revealed, double change) {
        Report start = made.get(index);
        Report before = made.get(index - 1);
        return new FoundChangePoint(
                index,
                start.id(),
                before.id(),
                "c" + (index + 1),
                "c" + index,
                T0.plus(Duration.ofHours(index + 1)),
                10,
                10 * (1 + change),
                change,
                change - 0.05,
                change + 0.05,
                1e-5,
                revealed);
    }

    /** Records the judgement of the newest report for {@code benchmark} with a change_point boundary holding {@code found}. */
    List<Alert> record(String benchmark, boolean alert, FoundChangePoint... found) {
        Report r = made.getLast();
        List<Long> ids = made.stream().map(Report::id).toList();
        MetricJudgement.Boundary b = new MetricJudgement.Boundary(
                threshold.id(),
                "change_point",
                null,
                10.5,
                ids.size() - 1,
                10.0,
                0.1,
                alert ? "upper" : null,
                new ChangePointWindow(ids, List.of(found), ChangePoints.SAME_WITHIN));
        return alerts.recordJudgement(judged(r), List.of(new MetricJudgement(benchmark, "latency", 12, List.of(b))), T0)
                .orElseThrow();
    }

    @Test
    void aLaterJudgementMovesAChangePointAndThenWithdrawsIt() {
        for (int i = 0; i < 9; i++) run(Map.of("sort", 10.0));
        List<Alert> raised = record("sort", true, at(6, true, 0.2));
        StoredChangePoint first = all().getFirst();
        assertThat(first.alertUuid()).isEqualTo(raised.getFirst().uuid());

        // The next judgement finds it one point later: the first is moved to a new one, which keeps the alert.
        run(Map.of("sort", 10.0));
        assertThat(record("sort", false, at(7, false, 0.18))).isEmpty();
        List<StoredChangePoint> now = all();
        assertThat(now).hasSize(2);
        StoredChangePoint moved = alerts.changePoints()
                .findChangePoint(project.id(), first.uuid())
                .orElseThrow();
        StoredChangePoint current = now.getFirst();
        assertThat(moved.state()).isEqualTo(StoredChangePoint.MOVED);
        assertThat(moved.replacedByUuid()).isEqualTo(current.uuid());
        assertThat(current.state()).isEqualTo(StoredChangePoint.CURRENT);
        assertThat(current.hash()).isEqualTo("c8");
        assertThat(current.change()).isCloseTo(0.18, within(1e-12));
        assertThat(current.alertUuid()).isEqualTo(first.alertUuid());
        assertThat(current.groupUuid()).isEqualTo(first.groupUuid());

        // A judgement that finds nothing in the window withdraws it; the moved one stays moved.
        run(Map.of("sort", 10.0));
        record("sort", false);
        assertThat(alerts.changePoints().findChangePoint(project.id(), current.uuid()))
                .get()
                .extracting(StoredChangePoint::state)
                .isEqualTo(StoredChangePoint.WITHDRAWN);
        assertThat(alerts.changePoints().findChangePoint(project.id(), first.uuid()))
                .get()
                .extracting(StoredChangePoint::state)
                .isEqualTo(StoredChangePoint.MOVED);
    }

    @Test
    void aChangeRevealedAgainIsNotAlertedTwice() {
        for (int i = 0; i < 9; i++) run(Map.of("sort", 10.0));
        Alert first = record("sort", true, at(6, true, 0.2)).getFirst();

        // A later judgement reveals it again two points away (its replayed window had forgotten
        // it): no second alert; the stored change point moves and keeps the first alert.
        run(Map.of("sort", 10.0));
        assertThat(record("sort", true, at(8, true, 0.2))).isEmpty();
        assertThat(all())
                .filteredOn(c -> c.state().equals(StoredChangePoint.CURRENT))
                .singleElement()
                .satisfies(c -> {
                    assertThat(c.hash()).isEqualTo("c9");
                    assertThat(c.alertUuid()).isEqualTo(first.uuid());
                });

        // Withdrawn, then revealed again: still the first alert, on the change point found again.
        run(Map.of("sort", 10.0));
        record("sort", false);
        run(Map.of("sort", 10.0));
        assertThat(record("sort", true, at(9, true, 0.2))).isEmpty();
        assertThat(all())
                .filteredOn(c -> c.state().equals(StoredChangePoint.CURRENT))
                .singleElement()
                .satisfies(c -> assertThat(c.alertUuid()).isEqualTo(first.uuid()));
        assertThat(alerts.alerts(new dev.baton.store.AlertFilter(project.id(), null, null, null, null, null, 100)))
                .hasSize(1);

        // Farther than 5 points from it, a change is a new one and alerts.
        for (int i = 0; i < 6; i++) run(Map.of("sort", 10.0));
        assertThat(record("sort", true, at(15, true, 0.2))).hasSize(1);
    }

    @Test
    void oneChangeRevealedForTwoMetricsByTwoReportsIsOneGroup() {
        for (int i = 0; i < 9; i++) run(Map.of("sort", 10.0));
        Alert sort = record("sort", true, at(6, true, 0.2)).getFirst();
        run(Map.of("sort", 10.0));
        Alert scan = record("scan", true, at(6, true, 0.3)).getFirst();

        assertThat(scan.groupUuid()).isEqualTo(sort.groupUuid());
        AlertGroup g = alerts.findAlertGroup(project.id(), sort.groupUuid()).orElseThrow();
        assertThat(g.alerts()).hasSize(2);
        assertThat(g.reportUuid()).isEqualTo(made.get(6).uuid().toString());
        assertThat(alerts.changePoints().ofGroups(List.of(g.id())))
                .extracting(StoredChangePoint::benchmark)
                .containsExactly("sort", "scan");
    }
}
