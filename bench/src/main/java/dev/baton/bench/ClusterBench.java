package dev.baton.bench;

import dev.baton.protocol.message.Wire;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code bench/run cluster}: several server nodes on one PostgreSQL (issue 14). Three nodes run in
 * this process on one fresh schema; measured: dispatch latency with the submission on node 1 and
 * the waiting runner on node 2 (the job crosses by NOTIFY), the same with both on node 2, and
 * lifecycle throughput with runners and submitters spread over the three nodes, live log latency
 * from a runner on node 1 to followers on nodes 1 and 2 ({@link LiveLogLatency}); then lifecycle
 * throughput of one node on a fresh schema of the same database, for comparison. All nodes share
 * this machine's cores: three nodes in one process show the cost of coordination, not the gain of
 * more machines.
 */
final class ClusterBench {
    static final int NODES = 3;

    private ClusterBench() {}

    static Path run(BenchOptions o) throws Exception {
        Path work = Files.createTempDirectory("baton-bench-cluster-");
        Map<String, Object> json = Bench.header(o);
        List<String[]> table = new ArrayList<>();
        int runners = o.runners().getLast();
        try (BenchDatabase database = new BenchDatabase(BenchDatabase.Kind.POSTGRESQL, o.pgUrl(), o.pgUser())) {
            json.put("database", database.describe(work));
            List<BenchServer> nodes = BenchServer.startCluster(work.resolve("cluster"), database.freshUrl(), NODES);
            try {
                int warmup = Math.max(3, o.samples() / 10);
                Bench.log("dispatch latency across nodes: " + o.samples() + " samples");
                DispatchLatency.Result cross =
                        DispatchLatency.run(nodes.get(0), nodes.get(1), "dispatch-cross", o.samples(), warmup);
                json.put("dispatch_latency_across_nodes", cross);
                table.add(Bench.row(
                        "dispatch, submit on node 1 → runner on node 2 (n="
                                + cross.submitToJob().count() + ")",
                        Bench.summary(cross.submitToJob())));
                table.add(Bench.row("  process during samples", Bench.use(cross.resources())));
                Bench.log("dispatch latency on one node of the cluster: " + o.samples() + " samples");
                DispatchLatency.Result same =
                        DispatchLatency.run(nodes.get(1), nodes.get(1), "dispatch-same", o.samples(), warmup);
                json.put("dispatch_latency_same_node", same);
                table.add(Bench.row(
                        "dispatch, submit and runner on node 2 (n="
                                + same.submitToJob().count() + ")",
                        Bench.summary(same.submitToJob())));

                Bench.log("lifecycle throughput, " + NODES + " nodes: " + runners + " runners x " + o.slots()
                        + " slots, " + o.jobs() + " jobs");
                LifecycleThroughput.Result three = LifecycleThroughput.run(nodes, runners, o.slots(), o.jobs());
                json.put("lifecycle_throughput_three_nodes", three);
                table.add(
                        Bench.row("lifecycle, " + NODES + " nodes, R=" + runners + " S=" + o.slots(), describe(three)));

                Bench.log(
                        "live log latency, runner on node 1, followers on nodes 1 and 2: " + o.samples() + " entries");
                LiveLogLatency.Result logs = LiveLogLatency.run(nodes.get(0), nodes.get(1), o.samples(), warmup);
                json.put("live_log_latency", logs);
                table.add(Bench.row(
                        "live log, runner and follower on node 1 (n="
                                + logs.sameNode().count() + ")",
                        Bench.summary(logs.sameNode())));
                table.add(Bench.row(
                        "live log, runner on node 1, follower on node 2 (n="
                                + logs.acrossNodes().count() + ")",
                        Bench.summary(logs.acrossNodes())));
            } finally {
                for (BenchServer n : nodes.reversed()) n.close();
            }
            try (BenchServer single = BenchServer.start(work.resolve("single"), database.freshUrl())) {
                Bench.log("lifecycle throughput, 1 node: " + runners + " runners x " + o.slots() + " slots, " + o.jobs()
                        + " jobs");
                LifecycleThroughput.Result one = LifecycleThroughput.run(single, runners, o.slots(), o.jobs());
                json.put("lifecycle_throughput_one_node", one);
                table.add(Bench.row("lifecycle, 1 node, R=" + runners + " S=" + o.slots(), describe(one)));
            }
        } finally {
            Bench.deleteQuietly(work);
        }
        json.put("finished", Instant.now().toString());
        json.put("load_average_at_end", ResourceUse.currentLoadAverage());
        Bench.printTable(table);
        Files.createDirectories(o.out());
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                .withZone(ZoneOffset.UTC)
                .format(Instant.now());
        Path file = o.out().resolve("cluster-postgresql-" + stamp + (o.smoke() ? "-smoke" : "") + ".json");
        Files.writeString(file, Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
        return file;
    }

    private static String describe(LifecycleThroughput.Result t) {
        return t.jobsPerSecond() + " jobs/s (" + t.jobs() + " jobs in " + t.seconds() + " s, " + t.submitters()
                + " submitters, "
                + t.writesPerJob() + " store writes/job, " + t.readsPerJob() + " store reads/job"
                + (t.finished() ? "" : ", UNFINISHED")
                + (t.problems() > 0 ? ", " + t.problems() + " protocol problems" : "") + "; "
                + Bench.use(t.resources(), t.jobsPerSecond()) + ")";
    }
}
