package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metric;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.Wire;
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
import dev.baton.store.Webhook;
import dev.baton.store.WebhookDelivery;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
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
        threshold = alerts.thresholds()
                .create(
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
                alerts.groups().find(project.id(), raised.get(0).groupUuid()).orElseThrow();
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
        return recordAll(metric(benchmark, alert, found));
    }

    /** The judgement of the newest report's {@code benchmark}: a change_point boundary holding {@code found}. */
    MetricJudgement metric(String benchmark, boolean alert, FoundChangePoint... found) {
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
        return new MetricJudgement(benchmark, "latency", 12, List.of(b));
    }

    /** Records one judgement of the newest report with these metrics. */
    List<Alert> recordAll(MetricJudgement... metrics) {
        return alerts.recordJudgement(judged(made.getLast()), List.of(metrics), T0)
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
        AlertGroup g = alerts.groups().find(project.id(), sort.groupUuid()).orElseThrow();
        assertThat(g.alerts()).hasSize(2);
        assertThat(g.reportUuid()).isEqualTo(made.get(6).uuid().toString());
        assertThat(alerts.changePoints().ofGroups(List.of(g.id())))
                .extracting(StoredChangePoint::benchmark)
                .containsExactly("sort", "scan");
    }

    /**
     * Webhooks (docs/alerts.md, "Webhooks"): a change across two metrics raises two alerts in one
     * group; when a later judgement moves both change points, each webhook gets one
     * {@code change_point.moved} for the group, and when the next withdraws them one
     * {@code change_point.withdrawn}, sent signed by the webhook sender through the same outbox.
     */
    @Test
    void aGroupsChangePointsThatMoveOrAreWithdrawnAreOneSignedEventPerWebhook() throws Exception {
        List<Received> received = new CopyOnWriteArrayList<>();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.createContext("/hook", exchange -> {
            received.add(new Received(
                    exchange.getRequestBody().readAllBytes(),
                    exchange.getRequestHeaders().getFirst(WebhookSignature.HEADER),
                    exchange.getRequestHeaders().getFirst("X-Baton-Event")));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        try (WebhookSender sender = new WebhookSender(store, Clock.fixed(T0, ZoneOffset.UTC), Duration.ofHours(1))) {
            String url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
            Webhook one = alerts.webhooks().createWebhook(project.id(), url, "whsec_one", T0);
            Webhook two = alerts.webhooks().createWebhook(project.id(), url, "whsec_two", T0);
            for (int i = 0; i < 9; i++) run(Map.of("sort", 10.0, "scan", 20.0));
            List<Alert> raised =
                    recordAll(metric("sort", true, at(6, true, 0.2)), metric("scan", true, at(6, true, 0.3)));
            assertThat(raised).hasSize(2);
            String group = raised.getFirst().groupUuid();
            assertThat(raised.get(1).groupUuid()).isEqualTo(group);

            Report moving = run(Map.of("sort", 10.0, "scan", 20.0));
            recordAll(metric("sort", false, at(7, false, 0.18)), metric("scan", false, at(7, false, 0.28)));
            Report withdrawing = run(Map.of("sort", 10.0, "scan", 20.0));
            recordAll(metric("sort", false), metric("scan", false));

            for (Webhook w : List.of(one, two)) {
                List<WebhookDelivery> log = alerts.webhooks().deliveries(w.id(), 10);
                assertThat(log)
                        .extracting(WebhookDelivery::event)
                        .containsExactly(
                                WebhookDelivery.CHANGE_POINT_WITHDRAWN,
                                WebhookDelivery.CHANGE_POINT_MOVED,
                                WebhookDelivery.ALERT_CREATED,
                                WebhookDelivery.ALERT_CREATED);
                assertThat(log.get(0).groupUuid()).isEqualTo(group);
                assertThat(log.get(0).reportUuid()).isEqualTo(withdrawing.uuid().toString());
                assertThat(log.get(0).alertUuid()).isNull();
                assertThat(log.get(1).reportUuid()).isEqualTo(moving.uuid().toString());
                assertThat(log.get(2).alertUuid()).isNotNull();
            }

            assertThat(sender.sendDue()).isEqualTo(8);
            assertThat(received).hasSize(8);
            for (Received r : received)
                assertThat(r.signature())
                        .isIn(WebhookSignature.of("whsec_one", r.body()), WebhookSignature.of("whsec_two", r.body()));
            JsonNode moved = only(received, WebhookDelivery.CHANGE_POINT_MOVED);
            assertThat(moved.path("event").asText()).isEqualTo("change_point.moved");
            assertThat(moved.path("project").asText()).isEqualTo(project.uuid().toString());
            assertThat(moved.path("report").asText()).isEqualTo(moving.uuid().toString());
            assertThat(moved.at("/group/uuid").asText()).isEqualTo(group);
            assertThat(moved.at("/group/hash").asText()).isEqualTo("c7");
            // No metric before the judged ones here, so the group's range has no start; the field is there.
            assertThat(moved.path("group").has("previous_hash")).isTrue();
            assertThat(moved.at("/group/alerts").asInt()).isEqualTo(2);
            assertThat(moved.at("/group/triage").asText()).isEqualTo("untriaged");
            assertThat(moved.path("change_points")).hasSize(2).allSatisfy(c -> {
                assertThat(c.path("state").asText()).isEqualTo("moved");
                assertThat(c.path("hash").asText()).isEqualTo("c7");
                assertThat(c.at("/replacement/hash").asText()).isEqualTo("c8");
                assertThat(c.at("/replacement/state").asText()).isEqualTo("withdrawn"); // as it is when sent
                assertThat(c.path("alert").asText())
                        .isIn(raised.get(0).uuid(), raised.get(1).uuid());
            });
            List<String> benchmarks = new ArrayList<>();
            moved.path("change_points")
                    .forEach(c -> benchmarks.add(c.path("benchmark").asText()));
            assertThat(benchmarks).containsExactlyInAnyOrder("sort", "scan");
            JsonNode withdrawn = only(received, WebhookDelivery.CHANGE_POINT_WITHDRAWN);
            assertThat(withdrawn.path("report").asText())
                    .isEqualTo(withdrawing.uuid().toString());
            assertThat(withdrawn.path("change_points")).hasSize(2).allSatisfy(c -> {
                assertThat(c.path("state").asText()).isEqualTo("withdrawn");
                assertThat(c.path("hash").asText()).isEqualTo("c8");
                assertThat(c.has("replacement")).isFalse();
            });
            // Delivered: nothing more is due.
            assertThat(sender.sendDue()).isZero();
        } finally {
            receiver.stop(0);
        }
    }

    record Received(byte[] body, String signature, String event) {}

    /** The body of the one delivery of {@code event} to each webhook (both webhooks get the same body). */
    static JsonNode only(List<Received> received, String event) throws Exception {
        List<Received> of =
                received.stream().filter(r -> event.equals(r.event())).toList();
        assertThat(of).as(event).hasSize(2);
        assertThat(new String(of.get(0).body(), StandardCharsets.UTF_8))
                .isEqualTo(new String(of.get(1).body(), StandardCharsets.UTF_8));
        return Wire.mapper().readTree(of.get(0).body());
    }
}
