package dev.baton.bench;

import dev.baton.alerts.Judge;
import dev.baton.alerts.ThresholdRules;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.Metric;
import dev.baton.core.adapter.Metrics;
import dev.baton.core.adapter.ReportResults;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Alerts;
import dev.baton.store.JudgedReport;
import dev.baton.store.MetricJudgement;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Report;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.ThresholdRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The cost of judging (docs/alerts.md, docs/benchmarks.md "Alerts"): one report of
 * {@code metrics} metrics judged by a {@code t_test} threshold (the default window of 64)
 * against a history of {@code history} earlier reports of the same metrics, on a fresh store.
 * {@code bench/run judge [--database postgresql://…] [--history N] [--metrics N] [--samples N]}.
 */
final class JudgeCost {
    private JudgeCost() {}

    static void run(String[] args) throws Exception {
        String database = null;
        int history = 10_000;
        int metrics = 100;
        int samples = 30;
        for (int i = 0; i < args.length - 1; i += 2) {
            switch (args[i]) {
                case "--database" -> database = args[i + 1];
                case "--history" -> history = Integer.parseInt(args[i + 1]);
                case "--metrics" -> metrics = Integer.parseInt(args[i + 1]);
                case "--samples" -> samples = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path dir = Files.createTempDirectory("baton-judge-cost");
        try (Store store = StoreFactory.open(database, dir)) {
            Instant t0 = Instant.parse("2020-01-01T00:00:00Z");
            Organization org = store.organizations().createOrganization("Bench", Slug.of("bench"), PlanTier.TEAM, t0);
            Project project = store.organizations().createProject(org.id(), "Bench", Slug.of("bench"), t0);
            Alerts alerts = store.alerts();
            SplittableRandom random = new SplittableRandom(1);
            long fill = System.nanoTime();
            // The history, judged without thresholds: only its metrics are written.
            for (int r = 0; r < history; r++) {
                Report report = report(store, project, t0.plus(Duration.ofMinutes(r)), metrics, random);
                JudgedReport judged = alerts.processedReport(report.id()).orElseThrow();
                List<MetricJudgement> rows = new ArrayList<>();
                for (int m = 0; m < metrics; m++)
                    rows.add(new MetricJudgement("bench-" + m, "latency", 100 + 2 * random.nextGaussian(), List.of()));
                alerts.recordJudgement(judged, rows, t0);
            }
            System.out.printf(
                    "history: %d reports × %d metrics written in %.1f s%n",
                    history, metrics, (System.nanoTime() - fill) / 1e9);
            if (database != null) {
                // As autovacuum would after a load this size: without statistics PostgreSQL may pick the wrong index.
                try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:" + database)) {
                    c.createStatement().execute("ANALYZE metric");
                }
            }
            alerts.thresholds()
                    .create(
                            project.id(),
                            ThresholdRules.check(new ThresholdRule(
                                    null, "bench", null, "latency", null, "t_test", null, null, null, null, -1)),
                            t0);
            Judge judge = new Judge(alerts, Clock.systemUTC());
            double[] ms = new double[samples];
            for (int s = 0; s < samples; s++) {
                Report report = report(store, project, t0.plus(Duration.ofMinutes(history + s)), metrics, random);
                long start = System.nanoTime();
                judge.judge(report.id());
                ms[s] = (System.nanoTime() - start) / 1e6;
            }
            Arrays.sort(ms);
            System.out.printf(
                    "judging one report of %d metrics against %d earlier reports (%s), n = %d: median %.1f ms, p90 %.1f ms, max %.1f ms%n",
                    metrics,
                    history,
                    database == null ? "sqlite" : "postgresql",
                    samples,
                    ms[samples / 2],
                    ms[(int) (samples * 0.9)],
                    ms[samples - 1]);
        }
    }

    private static Report report(Store store, Project project, Instant end, int metrics, SplittableRandom random) {
        Map<String, Map<String, Metric>> values = new LinkedHashMap<>();
        for (int m = 0; m < metrics; m++)
            values.put("bench-" + m, Map.of("latency", Metric.of(100 + 2 * random.nextGaussian())));
        String results = ReportResults.of(List.of(new IterationResults(0, new Metrics(values), null)))
                .toJson();
        return store.runs()
                .createReport(
                        new NewReport(project.id(), "main", "bench", "json", end.minusSeconds(1), end, results), end);
    }
}
