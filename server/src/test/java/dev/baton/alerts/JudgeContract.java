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
import dev.baton.store.AlertFilter;
import dev.baton.store.Alerts;
import dev.baton.store.HistoryQuery;
import dev.baton.store.MetricPoint;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Store;
import dev.baton.store.Threshold;
import dev.baton.store.ThresholdRule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Judging a report on a real store, both dialects: boundaries stored with the metric, an alert
 * for a value outside, the report itself not in its baseline, one judgement per report, a
 * branch's start point, and reports that are not processed left alone.
 */
abstract class JudgeContract {
    static final Instant T0 = Instant.parse("2026-05-01T10:00:00Z");

    Store store;
    Alerts alerts;
    Project project;
    Judge judge;
    int reports;

    abstract Store openStore();

    @BeforeEach
    void open() {
        store = openStore();
        alerts = store.alerts();
        Organization org = store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, T0);
        project = store.organizations().createProject(org.id(), "P", Slug.of("p"), T0);
        judge = new Judge(alerts, Clock.fixed(T0, ZoneOffset.UTC));
    }

    @AfterEach
    void close() {
        store.close();
    }

    /** A direct run on {@code branch} whose one benchmark "sort" measured {@code latency}, an hour after the previous one. */
    Report run(String branch, double latency) {
        Instant end = T0.plus(Duration.ofHours(++reports));
        Metrics m = new Metrics(Map.of("sort", Map.of("latency", Metric.of(latency))));
        String results =
                ReportResults.of(List.of(new IterationResults(0, m, null))).toJson();
        return store.runs()
                .createReport(
                        new NewReport(project.id(), branch, "box", "json", end.minusSeconds(1), end, results), end);
    }

    Threshold tTest(String branch) {
        return alerts.thresholds()
                .create(
                        project.id(),
                        ThresholdRules.check(new ThresholdRule(
                                branch, "box", null, "latency", null, "t_test", null, 0.95, 64, null, -1)),
                        T0);
    }

    @Test
    void aValueAboveTheUpperBoundaryRaisesAnAlertWithTheBaselineSummary() {
        Threshold t = tTest(null);
        for (double v : new double[] {10, 12, 11, 13, 14})
            judge.judge(run("main", v).id());
        Report slow = run("main", 16);

        List<Alert> raised = judge.judge(slow.id());

        // ModelTest: t(0.95, 4) over 10, 12, 11, 13, 14 gives the upper limit 15.692466.
        assertThat(raised).singleElement().satisfies(a -> {
            assertThat(a.side()).isEqualTo("upper");
            assertThat(a.value()).isEqualTo(16.0);
            assertThat(a.limit()).isCloseTo(15.692466, within(1e-5));
            assertThat(a.baselineSize()).isEqualTo(5);
            assertThat(a.baselineMean()).isCloseTo(12, within(1e-9));
            assertThat(a.thresholdUuid()).isEqualTo(t.uuid());
            assertThat(a.model()).isEqualTo("t_test");
            assertThat(a.status()).isEqualTo(Alert.ACTIVE);
            assertThat(a.reportUuid()).isEqualTo(slow.uuid().toString());
            assertThat(a.benchmark()).isEqualTo("sort");
        });
        List<MetricPoint> metrics = alerts.reportMetrics(slow.id());
        assertThat(metrics).singleElement().satisfies(p -> {
            assertThat(p.value()).isEqualTo(16.0);
            assertThat(p.boundaries()).singleElement().satisfies(b -> {
                assertThat(b.upperLimit()).isCloseTo(15.692466, within(1e-5));
                assertThat(b.lowerLimit()).isNull();
                assertThat(b.baselineSize()).isEqualTo(5);
                assertThat(b.baselineStddev()).isCloseTo(Math.sqrt(2.5), within(1e-9));
            });
        });
    }

    @Test
    void aChangePointThresholdAlertsOnceWhenANewLevelHasThreePoints() {
        // Issue 44: model change_point, default 5 % upward (ChangePointsTest has the figures).
        Threshold t = alerts.thresholds()
                .create(
                        project.id(),
                        ThresholdRules.check(new ThresholdRule(
                                null, "box", null, "latency", null, "change_point", null, null, null, null, -1)),
                        T0);
        assertThat(t.rule().upperBoundary()).isEqualTo(ChangePoints.MIN_CHANGE);
        for (double v : new double[] {10, 10.1, 9.9, 10, 10.2, 9.8, 12, 12.1})
            assertThat(judge.judge(run("main", v).id())).isEmpty();
        Report third = run("main", 11.9);

        assertThat(judge.judge(third.id())).singleElement().satisfies(a -> {
            assertThat(a.model()).isEqualTo("change_point");
            assertThat(a.side()).isEqualTo("upper");
            assertThat(a.value()).isEqualTo(11.9);
            // No change point in the history yet: its mean (60 + 24.1) / 8 = 10.5125, + 5 %.
            assertThat(a.limit()).isCloseTo(10.5125 * 1.05, within(1e-9));
        });
        assertThat(judge.judge(run("main", 12).id())).isEmpty();
        // Identical values after it raise nothing either.
        for (int i = 0; i < 5; i++)
            assertThat(judge.judge(run("main", 12).id())).isEmpty();
    }

    @Test
    void theConsoleReadsTheJudgedMetricNamesAndAReportsHash() {
        judge.judge(run("main", 10).id());
        Report hashed = run("feature", 11);
        alerts.setReportHash(hashed.id(), "abc1234def");
        judge.judge(hashed.id());

        assertThat(alerts.metricNames(project.id())).containsExactly(new dev.baton.store.MetricName("sort", "latency"));
        assertThat(alerts.reportHash(hashed.id())).contains("abc1234def");
        assertThat(alerts.reportHash(hashed.id() - 1)).isEmpty();
    }

    @Test
    void aValueInsideRaisesNothingButItsBoundaryIsStored() {
        tTest("main");
        for (double v : new double[] {10, 12, 11, 13, 14})
            judge.judge(run("main", v).id());
        Report ok = run("main", 15);
        assertThat(judge.judge(ok.id())).isEmpty();
        assertThat(alerts.reportMetrics(ok.id())
                        .getFirst()
                        .boundaries()
                        .getFirst()
                        .upperLimit())
                .isCloseTo(15.692466, within(1e-5));
        assertThat(alerts.alerts(new AlertFilter(project.id(), null, null, null, null, null, 100)))
                .isEmpty();
    }

    @Test
    void belowTheMinimumTheThresholdOnlyRecords() {
        tTest(null);
        judge.judge(run("main", 10).id());
        Report second = run("main", 1000);
        assertThat(judge.judge(second.id())).isEmpty();
        MetricPoint.StoredBoundary b =
                alerts.reportMetrics(second.id()).getFirst().boundaries().getFirst();
        assertThat(b.baselineSize()).isEqualTo(1);
        assertThat(b.upperLimit()).isNull();
    }

    @Test
    void aReportIsJudgedOnceHoweverOftenItIsAsked() {
        tTest(null);
        for (double v : new double[] {10, 12, 11, 13, 14})
            judge.judge(run("main", v).id());
        Report slow = run("main", 16);
        assertThat(judge.judge(slow.id())).hasSize(1);
        assertThat(judge.judge(slow.id())).isEmpty();
        // A second judge (another node) working from the same reads writes nothing either.
        assertThat(new Judge(alerts, Clock.systemUTC()).judge(slow.id())).isEmpty();
        assertThat(alerts.alerts(new AlertFilter(project.id(), null, null, null, null, null, 100)))
                .hasSize(1);
        assertThat(alerts.reportMetrics(slow.id())).hasSize(1);
        assertThat(alerts.unjudgedReports(10)).isEmpty();
    }

    @Test
    void theSweepJudgesProcessedReportsNobodyJudged() {
        tTest(null);
        for (double v : new double[] {10, 12, 11, 13, 14, 16}) run("main", v);
        assertThat(alerts.unjudgedReports(100)).hasSize(6);
        try (Judging judging = new Judging(judge, alerts, Clock.fixed(T0, ZoneOffset.UTC), Duration.ofHours(1))) {
            // The first sweep runs at once on the sweeping thread; this one finds what is left.
            judging.sweep();
        }
        assertThat(alerts.unjudgedReports(100)).isEmpty();
        // Oldest first: the sixth report saw the five before it.
        assertThat(alerts.alerts(new AlertFilter(project.id(), Alert.ACTIVE, "main", "sort", null, null, 100)))
                .singleElement()
                .satisfies(a -> assertThat(a.baselineSize()).isEqualTo(5));
    }

    @Test
    void aReportWithAnAdapterErrorIsNotJudged() {
        Report failed = store.runs().createReport(new NewReport(project.id(), "main", "box", "json", T0, T0, null), T0);
        assertThat(alerts.processedReport(failed.id())).isEmpty();
        assertThat(judge.judge(failed.id())).isEmpty();
    }

    @Test
    void aNewBranchIsJudgedAgainstItsStartPointsHistory() {
        tTest(null);
        for (double v : new double[] {10, 12, 11, 13, 14})
            judge.judge(run("main", v).id());
        alerts.setStartPointIfAbsent(project.id(), "feature", "main", null, T0.plus(Duration.ofDays(1)));
        Report first = run("feature", 16);
        assertThat(judge.judge(first.id())).singleElement().satisfies(a -> {
            assertThat(a.branch()).isEqualTo("feature");
            assertThat(a.baselineSize()).isEqualTo(5);
        });
        // Without a start point the same first run has no history, so nothing to judge against.
        Report other = run("other", 16);
        assertThat(judge.judge(other.id())).isEmpty();
    }

    @Test
    void aStartPointIsSetOnceAndItsReportMustBeOnTheStartBranch() {
        Report onMain = run("main", 10);
        alerts.setStartPointIfAbsent(project.id(), "feature", "main", onMain.id(), T0);
        // The second call keeps the first start point.
        assertThat(alerts.setStartPointIfAbsent(project.id(), "feature", "dev", null, T0)
                        .startBranch())
                .isEqualTo("main");
        assertThat(alerts.startPoint(project.id(), "feature").orElseThrow().until())
                .isEqualTo(onMain.endTime());
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> alerts.setStartPointIfAbsent(project.id(), "x", "dev", onMain.id(), T0))
                .isInstanceOf(dev.baton.store.StoreException.class);
        assertThat(alerts.startPoint(project.id(), "x")).isEmpty();
    }

    @Test
    void historyIsPagedNewestFirstWithBoundaries() {
        tTest("main");
        for (double v : new double[] {10, 12, 11, 13, 14, 16})
            judge.judge(run("main", v).id());
        List<MetricPoint> page =
                alerts.history(new HistoryQuery(project.id(), "sort", "latency", "main", "box", null, 4));
        assertThat(page).extracting(MetricPoint::value).containsExactly(16.0, 14.0, 13.0, 11.0);
        assertThat(page.getFirst().boundaries()).hasSize(1);
        List<MetricPoint> next = alerts.history(new HistoryQuery(
                project.id(), "sort", "latency", "main", "box", page.getLast().id(), 4));
        assertThat(next).extracting(MetricPoint::value).containsExactly(12.0, 10.0);
    }

    @Test
    void aDeletedThresholdJudgesNoMoreButItsAlertsStay() {
        Threshold t = tTest(null);
        for (double v : new double[] {10, 12, 11, 13, 14, 16})
            judge.judge(run("main", v).id());
        assertThat(alerts.thresholds().delete(project.id(), t.uuid(), T0)).isTrue();
        assertThat(alerts.thresholds().list(project.id())).isEmpty();
        assertThat(judge.judge(run("main", 100).id())).isEmpty();
        assertThat(alerts.alerts(new AlertFilter(project.id(), null, null, null, null, null, 100)))
                .hasSize(1);
    }

    @Test
    void anAlertIsDismissedAndReopened() {
        tTest(null);
        for (double v : new double[] {10, 12, 11, 13, 14})
            judge.judge(run("main", v).id());
        Alert a = judge.judge(run("main", 16).id()).getFirst();
        assertThat(alerts.setAlertStatus(project.id(), a.uuid(), Alert.DISMISSED, T0)
                        .orElseThrow()
                        .status())
                .isEqualTo(Alert.DISMISSED);
        assertThat(alerts.alerts(new AlertFilter(project.id(), Alert.ACTIVE, null, null, null, null, 100)))
                .isEmpty();
        assertThat(alerts.setAlertStatus(project.id(), a.uuid(), Alert.ACTIVE, T0)
                        .orElseThrow()
                        .status())
                .isEqualTo(Alert.ACTIVE);
        assertThat(alerts.setAlertStatus(project.id(), "no-such-alert", Alert.ACTIVE, T0))
                .isEmpty();
    }

    @Test
    void eachNewAlertIsQueuedForEveryWebhookWithTheJudgementAndTakenByOneSender() {
        tTest(null);
        alerts.webhooks().createWebhook(project.id(), "http://127.0.0.1:9/a", "secret-a", T0);
        alerts.webhooks().createWebhook(project.id(), "http://127.0.0.1:9/b", "secret-b", T0);
        for (double v : new double[] {10, 12, 11, 13, 14})
            judge.judge(run("main", v).id());
        assertThat(alerts.webhooks().dueDeliveries(T0.plusSeconds(1), 10))
                .as("no alert, nothing queued")
                .isEmpty();

        Alert a = judge.judge(run("main", 16).id()).getFirst();

        // Queued in the judgement's transaction: no sender ran, and a node dying now loses nothing.
        List<dev.baton.store.WebhookDelivery> due = alerts.webhooks().dueDeliveries(T0, 10);
        assertThat(due).hasSize(2).allSatisfy(d -> {
            assertThat(d.alertUuid()).isEqualTo(a.uuid());
            assertThat(d.attempts()).isZero();
        });
        dev.baton.store.WebhookDelivery d = due.getFirst();
        assertThat(alerts.webhooks().takeDelivery(d.id(), d.nextAttempt(), T0.plusSeconds(120)))
                .isTrue();
        assertThat(alerts.webhooks().takeDelivery(d.id(), d.nextAttempt(), T0.plusSeconds(120)))
                .as("another node")
                .isFalse();
        assertThat(alerts.webhooks().dueDeliveries(T0, 10)).hasSize(1);
        // A node that died mid-send: the delivery is due again once the taking lapses.
        assertThat(alerts.webhooks().dueDeliveries(T0.plusSeconds(120), 10)).hasSize(2);
    }

    @Test
    void thePeriodicSweepLooksOnlyAtRecentlyProcessedReports() {
        Report old = run("main", 10);
        // run() stores each report at its end time: an hour apart, from T0 + 1 h.
        assertThat(alerts.unjudgedReports(old.modified().plusSeconds(1), 10)).isEmpty();
        assertThat(alerts.unjudgedReports(old.modified(), 10)).containsExactly(old.id());
        assertThat(alerts.unjudgedReports(null, 10)).containsExactly(old.id());
    }
}
