package dev.baton.bench;

import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The benchmark harness (issue 6): starts a real Baton server on 127.0.0.1, drives it with
 * simulated runners over real WebSockets, and measures dispatch latency, lifecycle throughput
 * against the store's own ceiling, connection scale, and the 1-second polling baseline; then the
 * lifecycle with the server on 1 and 2 cores ({@link CoreScaling}). Prints a table and the
 * targets summary ({@link Targets}) and writes a JSON file. {@code bench jmh …} runs the JMH
 * microbenchmarks instead.
 */
public final class Bench {
    private Bench() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            Microbenchmarks.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("judge")) {
            JudgeCost.run(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("agent")) {
            AgentAtRest.run(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("agent-job")) {
            AgentBesideJob.run(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("pools")) {
            PoolBench.run(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("paired")) {
            PairedBench.run(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("changepoints")) {
            ChangePointBench.run(java.util.Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("affinity")) {
            System.out.println("results: "
                    + AffinityBench.run(java.util.Arrays.copyOfRange(args, 1, args.length))
                            .toAbsolutePath());
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("floor")) {
            BenchOptions options = subcommandOptions(args);
            TransportFloor.runAlone(options);
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("leases")) {
            BenchOptions options = subcommandOptions(args);
            try {
                System.out.println("results: " + LeaseBench.run(options).toAbsolutePath());
            } catch (Exception e) {
                e.printStackTrace(); // the broker clients' threads would keep the JVM alive
                System.exit(1);
            }
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("cores")) {
            BenchOptions options = subcommandOptions(args);
            System.out.println("results: " + CoreScaling.runAlone(options).toAbsolutePath());
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("lifecycle")) {
            BenchOptions options = subcommandOptions(args);
            System.out.println("results: " + LifecycleBench.run(options).toAbsolutePath());
            System.exit(0);
        }
        if (args.length > 0 && args[0].equals("cluster")) {
            BenchOptions options = subcommandOptions(args);
            System.out.println("results: " + ClusterBench.run(options).toAbsolutePath());
            System.exit(0);
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Path file = run(options);
        System.out.println("results: " + file.toAbsolutePath());
        System.exit(0);
    }

    /** Runs every measurement once and returns the JSON file written. */
    static Path run(BenchOptions o) throws Exception {
        Path work = Files.createTempDirectory("baton-bench-");
        Map<String, Object> json = header(o);
        List<String[]> table = new ArrayList<>();
        List<Targets.Line> targets;
        try (BenchDatabase database = new BenchDatabase(o.database(), o.pgUrl(), o.pgUser())) {
            Path serverDir = work.resolve("server");
            json.put("database", database.describe(serverDir));
            try (BenchServer server = BenchServer.start(serverDir, database.freshUrl())) {
                log("dispatch latency: " + o.samples() + " samples");
                DispatchLatency.Result dispatch =
                        DispatchLatency.run(server, o.samples(), Math.max(3, o.samples() / 10));
                json.put("dispatch_latency", dispatch);
                table.add(row(
                        "1 dispatch latency, submit→job (n="
                                + dispatch.submitToJob().count() + ")",
                        summary(dispatch.submitToJob())));
                table.add(row("  POST /v0/run round trip", summary(dispatch.postRoundTrip())));
                table.add(row("  process during samples", use(dispatch.resources())));
                DispatchLatency.Result across = null;
                if (database.kind() == BenchDatabase.Kind.POSTGRESQL) {
                    log("dispatch latency across nodes: two more nodes on a fresh schema, " + o.samples() + " samples");
                    across = acrossNodes(database, work, o.samples());
                    json.put("dispatch_latency_across_nodes", across);
                    table.add(row(
                            "1c dispatch across nodes, submit on node 1 → runner on node 2 (n="
                                    + across.submitToJob().count() + ")",
                            summary(across.submitToJob())));
                }
                log("dispatch latency through a router: " + o.samples() + " samples");
                DispatchLatency.Result routed =
                        RouterDispatchLatency.run(server, work, o.samples(), Math.max(3, o.samples() / 10));
                json.put("dispatch_latency_router", routed);
                table.add(row(
                        "1r dispatch through a router, submit→job (n="
                                + routed.submitToJob().count() + ")",
                        summary(routed.submitToJob())));

                log("polling baseline: " + o.baselineSamples() + " samples");
                Summary polling = PollingBaseline.run(server, o.baselineSamples());
                json.put(
                        "polling_baseline",
                        Map.of("interval_ms", PollingBaseline.INTERVAL_MS, "submit_to_claim", polling));
                table.add(row(
                        "5 baseline: 1 s polling claim, submit→claim (n=" + polling.count() + ")", summary(polling)));

                log("transport floor: sampling one real run answer and job message");
                FloorServer.Sample floorSample = TransportFloor.capture(server);
                DispatchRows.floor(floorSample, o, json, table);
                List<Map<String, Object>> rounds = new ArrayList<>();
                List<Targets.Round> targetRounds = new ArrayList<>();
                for (int r : o.runners()) {
                    WarmUp.lifecycleAndFloor(server, floorSample, r, o);
                    log("lifecycle throughput: " + r + " runners x " + o.slots() + " slots, " + o.jobs() + " jobs");
                    FlushedCommits.Meter flushMeter = database.kind() == BenchDatabase.Kind.POSTGRESQL
                            ? new FlushedCommits.Meter(database)
                            : null;
                    StatementStats.Meter statementMeter = database.kind() == BenchDatabase.Kind.POSTGRESQL
                            ? new StatementStats.Meter(o.pgUrl(), o.pgUser())
                            : null;
                    LifecycleThroughput.Result t = LifecycleThroughput.run(server, r, o.slots(), o.jobs(), () -> {
                        if (flushMeter != null) flushMeter.start();
                        if (statementMeter != null) statementMeter.start();
                    });
                    long lifecycleEnded = System.nanoTime();
                    StatementStats.Result statements = statementMeter == null ? null : statementMeter.stop(t.jobs());
                    log("store reads/job by method, R=" + r + ": " + t.readsPerJobByMethod());
                    // The floor right after the lifecycle: it does not touch the database, so on
                    // PostgreSQL it runs while the backends' statistics settle (FlushedCommits).
                    log("transport floor: " + r + " runners x " + o.slots() + " slots, " + o.jobs()
                            + " jobs, no store, no Baton server logic");
                    TransportFloor.Result floor = TransportFloor.run(floorSample, r, o.slots(), o.jobs());
                    FlushedCommits.Result flushes = null;
                    if (flushMeter != null) {
                        log("flushed commits: reading pg_stat_wal " + FlushedCommits.SETTLE_SECONDS
                                + " s after the lifecycle's end");
                        flushes = flushMeter.stop(t.jobs(), lifecycleEnded);
                    }
                    log("store ceiling: " + StoreCeiling.workers(r, o.slots()) + " workers, " + o.jobs() + " jobs");
                    StoreCeiling.Result c =
                            StoreCeiling.run(database, work.resolve("ceiling-" + r), r, o.slots(), o.jobs());
                    log("raw ceiling: " + RawCeiling.workers(r, o.slots()) + " workers, " + o.jobs() + " jobs, 1 and "
                            + RawCeiling.BATCH + " per transaction");
                    List<RawCeiling.Result> raw =
                            RawCeiling.run(database, work.resolve("raw-" + r), r, o.slots(), o.jobs());
                    double ratio = LifecycleThroughput.round(t.jobsPerSecond() / c.jobsPerSecond());
                    double rawPerStep = raw.get(0).jobsPerSecond();
                    double floorPerSecond = floor.floor().jobsPerSecond();
                    double serverToFloor = LifecycleThroughput.round(t.jobsPerSecond() / floorPerSecond);
                    double own = batonOwnMillisPerJob(t, floor.floor(), raw.get(1));
                    Map<String, Object> round = new LinkedHashMap<>();
                    round.put("server", t);
                    round.put("store_ceiling", c);
                    round.put("ratio_server_to_store", ratio);
                    round.put("raw_ceiling", raw);
                    round.put(
                            "ratio_server_to_raw_per_step", LifecycleThroughput.round(t.jobsPerSecond() / rawPerStep));
                    round.put("ratio_store_to_raw_per_step", LifecycleThroughput.round(c.jobsPerSecond() / rawPerStep));
                    round.put("transport_floor", floor);
                    round.put("ratio_floor_to_raw_per_step", LifecycleThroughput.round(floorPerSecond / rawPerStep));
                    round.put("ratio_server_to_floor", serverToFloor);
                    round.put("baton_own_machine_cpu_ms_per_job", own);
                    if (flushes != null) round.put("flushed_commits", flushes);
                    if (statements != null) round.put("statements", statements);
                    rounds.add(round);
                    targetRounds.add(new Targets.Round(r, serverToFloor, own, flushes));
                    table.add(row(
                            "2 lifecycle throughput R=" + r + " S=" + o.slots(),
                            t.jobsPerSecond() + " jobs/s (" + t.jobs() + " jobs in "
                                    + t.seconds() + " s, " + t.submitters() + " submitters, " + t.writesPerJob()
                                    + " store writes/job, " + t.readsPerJob() + " store reads/job, "
                                    + t.readsPerJobByMethod().getOrDefault(CountingStore.CLAIMS, 0.0) + " claims/job ("
                                    + t.readsPerJobByMethod().getOrDefault(CountingStore.EMPTY_CLAIMS, 0.0) + " empty)"
                                    + (t.finished() ? "" : ", UNFINISHED")
                                    + (t.problems() > 0 ? ", " + t.problems() + " protocol problems" : "") + "; "
                                    + use(t.resources(), t.jobsPerSecond()) + ")"));
                    if (flushes != null)
                        table.add(row(
                                "2w flushed commits R=" + r + " (PostgreSQL, submit to processed)",
                                FlushedCommits.describe(flushes)));
                    if (statements != null)
                        StatementStats.addRows(
                                table,
                                "2s PostgreSQL statements R=" + r + " (pg_stat_statements, submit to processed)",
                                statements);
                    table.add(row(
                            "3 store ceiling, " + c.workers() + " workers",
                            c.jobsPerSecond() + " jobs/s (" + use(c.resources(), c.jobsPerSecond())
                                    + "); server/store = " + ratio));
                    for (RawCeiling.Result x : raw) {
                        table.add(row(
                                "3b raw ceiling, " + x.mode() + ", " + x.workers() + " workers",
                                x.jobsPerSecond() + " jobs/s (" + use(x.resources(), x.jobsPerSecond())
                                        + "); server/raw = "
                                        + LifecycleThroughput.round(t.jobsPerSecond() / x.jobsPerSecond())
                                        + ", store/raw = "
                                        + LifecycleThroughput.round(c.jobsPerSecond() / x.jobsPerSecond())));
                    }
                    table.add(row(
                            "3f transport floor R=" + r + " S=" + o.slots() + " (no store, no Baton logic)",
                            TransportFloor.describe(floor)
                                    + "; floor/raw 1 per step = "
                                    + LifecycleThroughput.round(floorPerSecond / rawPerStep)
                                    + ", server/floor = " + serverToFloor));
                    table.add(row(
                            "3c Baton's own machine CPU per job R=" + r,
                            own < 0
                                    ? "unknown (no /proc/stat)"
                                    : own + " ms (lifecycle minus floor minus raw at " + RawCeiling.BATCH
                                            + " jobs per transaction)"));
                }
                json.put("lifecycle_throughput", rounds);

                List<CoreScaling.Result> cores = null;
                String coresMissing = CpuPinning.unavailable();
                if (coresMissing == null) {
                    cores = CoreScaling.run(
                            database, work.resolve("cores"), o.runners(), o.slots(), o.jobs(), !o.smoke());
                    json.put("core_scaling", cores);
                    CoreScaling.addRows(table, cores);
                } else {
                    log("cores: not measured: " + coresMissing);
                    json.put("core_scaling", Map.of("not_measured", coresMissing));
                    table.add(row("2p lifecycle, server on 1 and 2 cores", "not measured: " + coresMissing));
                }
                targets = Targets.of(new Targets.Figures(
                        database.kind(),
                        targetRounds,
                        dispatch.submitToJob(),
                        across == null ? null : across.submitToJob(),
                        cores,
                        coresMissing));

                log("connection scale: " + o.connections() + " runners, " + o.warmupSeconds() + " s warm-up, "
                        + o.durationSeconds() + " s measured");
                ConnectionScale.Result s = ConnectionScale.run(
                        server, database, work, o.connections(), o.warmupSeconds(), o.durationSeconds());
                json.put("connection_scale", s);
                table.add(row(
                        "4 connection scale: " + s.connected() + " runners (" + s.holdingJobs() + " with a job; "
                                + s.ackedInWindow() + " acked in the window, " + s.openAtEnd()
                                + " open at the end), heartbeat ack",
                        summary(s.ackLatency()) + ", " + s.acksPerSecond() + " acks/s"));
                table.add(row(
                        "  server process (fleet in a child JVM)",
                        s.server().cpuCores() + " cores CPU, GC " + s.server().gcMillis() + " ms, RSS "
                                + s.serverRssMib() + " MiB (peak " + s.serverPeakRssMib() + "), heap used "
                                + s.serverHeapUsedMib() + " MiB"));
                table.add(row(
                        "  database writes",
                        s.storeWritesPerSecond() + " store write calls/s " + s.storeWritesByMethod() + " in "
                                + s.seconds() + " s (" + s.heartbeatRowsPerSecond() + " heartbeat rows/s)"
                                + (s.pgCommitsPerSecond() != null
                                        ? ", " + s.pgCommitsPerSecond() + " pg commits/s (whole database)"
                                        : "")));
                table.add(row(
                        "  fleet client",
                        s.clientCpuCores() + " cores CPU, RSS " + s.clientRssMib() + " MiB, " + s.problems()
                                + " protocol problems"));
            }
        } finally {
            deleteQuietly(work);
        }
        json.put("finished", Instant.now().toString());
        json.put("load_average_at_end", ResourceUse.currentLoadAverage());
        json.put("targets", Targets.json(targets));
        printTable(table);
        Targets.print(targets);
        return write(o, o.database().name().toLowerCase(), json);
    }

    /** Writes {@code json} to {@code <out>/<prefix>-<UTC time>[-smoke].json}. */
    static Path write(BenchOptions o, String prefix, Map<String, Object> json) throws IOException {
        Files.createDirectories(o.out());
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now());
        Path file = o.out().resolve(prefix + "-" + stamp + (o.smoke() ? "-smoke" : "") + ".json");
        Files.writeString(file, Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
        return file;
    }

    /**
     * Baton's own machine CPU per job: the lifecycle's, minus what the transport floor costs (the
     * HTTP and WebSocket stack and the harness) and what the raw statements cost at
     * {@value RawCeiling#BATCH} jobs per transaction (the database's share at its cheapest). -1
     * where the machine's CPU is unknown.
     */
    static double batonOwnMillisPerJob(
            LifecycleThroughput.Result lifecycle, LifecycleThroughput.Result floor, RawCeiling.Result raw) {
        double l = lifecycle.resources().machineMillisPerJob(lifecycle.jobsPerSecond());
        double f = floor.resources().machineMillisPerJob(floor.jobsPerSecond());
        double r = raw.resources().machineMillisPerJob(raw.jobsPerSecond());
        return l < 0 || f < 0 || r < 0 ? -1 : LifecycleThroughput.round(l - f - r);
    }

    /** Dispatch latency with the submission on one node and the runner on another: two cluster nodes on a fresh schema, as {@code bench cluster} does. */
    private static DispatchLatency.Result acrossNodes(BenchDatabase database, Path work, int samples) throws Exception {
        List<BenchServer> nodes = BenchServer.startCluster(work.resolve("cluster"), database.freshUrl(), 2);
        try {
            return DispatchLatency.run(
                    nodes.get(0), nodes.get(1), "dispatch-cross", samples, Math.max(3, samples / 10));
        } finally {
            for (BenchServer n : nodes.reversed()) n.close();
        }
    }

    /** What every results file starts with: when, with which options, on what machine under what load. */
    static Map<String, Object> header(BenchOptions o) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("started", Instant.now().toString());
        json.put("options", o.describe());
        json.put("load_average_at_start", ResourceUse.currentLoadAverage());
        json.put(
                "machine",
                Map.of(
                        "cores",
                        Runtime.getRuntime().availableProcessors(),
                        "java",
                        System.getProperty("java.version"),
                        "os",
                        System.getProperty("os.name") + " " + System.getProperty("os.version"),
                        "max_heap_mib",
                        Runtime.getRuntime().maxMemory() >> 20));
        return json;
    }

    /** The options after a subcommand's name; a usage error ends the process with status 2. */
    private static BenchOptions subcommandOptions(String[] args) {
        try {
            return BenchOptions.parse(java.util.Arrays.copyOfRange(args, 1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            throw e; // not reached
        }
    }

    static String summary(Summary s) {
        return "median " + s.medianMs() + " ms, p90 " + s.p90Ms() + " ms, p99 " + s.p99Ms() + " ms, max " + s.maxMs()
                + " ms";
    }

    static String use(ResourceUse u) {
        return u.cpuCores() + " cores CPU" + (u.machineCores() < 0 ? "" : " (machine " + u.machineCores() + ")")
                + ", GC " + u.gcCount() + "×/" + u.gcMillis() + " ms, load " + u.loadAverage();
    }

    /** The same with the machine's CPU per job at this rate: the budget issue 13's targets are weighed in. */
    static String use(ResourceUse u, double jobsPerSecond) {
        double perJob = u.machineMillisPerJob(jobsPerSecond);
        return use(u) + (perJob < 0 ? "" : ", machine CPU " + perJob + " ms/job");
    }

    static String[] row(String what, String value) {
        return new String[] {what, value};
    }

    static void printTable(List<String[]> rows) {
        int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(10);
        System.out.println();
        System.out.printf("%-" + width + "s | %s%n", "measurement", "result");
        System.out.println("-".repeat(width) + "-+-" + "-".repeat(60));
        for (String[] r : rows) System.out.printf("%-" + width + "s | %s%n", r[0], r[1]);
        System.out.println();
    }

    static void log(String message) {
        System.err.println("bench: " + message);
    }

    static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("bench: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
