package dev.baton.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bench lifecycle}: dispatch latency (same node) and, per R, the lifecycle with its
 * statements counted (PostgreSQL) beside the transport floor, after the usual warm-up: the
 * figures a change to the store's per-job path moves, in a few minutes, so runs before and
 * after a change can be interleaved (issue 46). The full run ({@link Bench}) measures the same
 * rounds among everything else.
 */
final class LifecycleBench {
    private LifecycleBench() {}

    static Path run(BenchOptions o) throws Exception {
        Path work = Files.createTempDirectory("baton-bench-");
        Map<String, Object> json = Bench.header(o);
        List<String[]> table = new ArrayList<>();
        try (BenchDatabase database = new BenchDatabase(o.database(), o.pgUrl(), o.pgUser())) {
            Path serverDir = work.resolve("server");
            json.put("database", database.describe(serverDir));
            try (BenchServer server = BenchServer.start(serverDir, database.freshUrl())) {
                Bench.log("dispatch latency: " + o.samples() + " samples");
                DispatchLatency.Result dispatch =
                        DispatchLatency.run(server, o.samples(), Math.max(3, o.samples() / 10));
                json.put("dispatch_latency", dispatch);
                table.add(Bench.row(
                        "1 dispatch latency, submit→job (n="
                                + dispatch.submitToJob().count() + ")",
                        Bench.summary(dispatch.submitToJob())));
                FloorServer.Sample floorSample = TransportFloor.capture(server);
                DispatchRows.floor(floorSample, o, json, table);
                List<Map<String, Object>> rounds = new ArrayList<>();
                for (int r : o.runners()) {
                    WarmUp.lifecycleAndFloor(server, floorSample, r, o);
                    StatementStats.Meter statementMeter = database.kind() == BenchDatabase.Kind.POSTGRESQL
                            ? new StatementStats.Meter(o.pgUrl(), o.pgUser())
                            : null;
                    Bench.log(
                            "lifecycle throughput: " + r + " runners x " + o.slots() + " slots, " + o.jobs() + " jobs");
                    LifecycleThroughput.Result t = LifecycleThroughput.run(
                            server, r, o.slots(), o.jobs(), statementMeter == null ? () -> {} : statementMeter::start);
                    StatementStats.Result statements = statementMeter == null ? null : statementMeter.stop(t.jobs());
                    Bench.log("transport floor: " + r + " runners x " + o.slots() + " slots, " + o.jobs() + " jobs");
                    TransportFloor.Result floor = TransportFloor.run(floorSample, r, o.slots(), o.jobs());
                    double serverToFloor = LifecycleThroughput.round(
                            t.jobsPerSecond() / floor.floor().jobsPerSecond());
                    Map<String, Object> round = new LinkedHashMap<>();
                    round.put("server", t);
                    round.put("transport_floor", floor);
                    round.put("ratio_server_to_floor", serverToFloor);
                    if (statements != null) round.put("statements", statements);
                    rounds.add(round);
                    table.add(Bench.row(
                            "2 lifecycle throughput R=" + r + " S=" + o.slots(),
                            t.jobsPerSecond() + " jobs/s, " + t.writesPerJob() + " store writes/job, "
                                    + t.readsPerJob() + " store reads/job" + (t.finished() ? "" : ", UNFINISHED")
                                    + "; " + Bench.use(t.resources(), t.jobsPerSecond()) + "; server/floor = "
                                    + serverToFloor));
                    table.add(Bench.row("3f transport floor R=" + r, TransportFloor.describe(floor)));
                    if (statements != null)
                        StatementStats.addRows(
                                table,
                                "2s PostgreSQL statements R=" + r + " (pg_stat_statements, submit to processed)",
                                statements);
                }
                json.put("lifecycle_throughput", rounds);
                DispatchRows.warm(server, floorSample, o, json, table);
            }
        } finally {
            Bench.deleteQuietly(work);
        }
        json.put("finished", Instant.now().toString());
        json.put("load_average_at_end", ResourceUse.currentLoadAverage());
        Bench.printTable(table);
        return Bench.write(o, "lifecycle-" + o.database().name().toLowerCase(), json);
    }
}
