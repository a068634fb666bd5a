package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * One run of the suite: a fresh store, the cluster, the fault phase (jobs submitted while faults
 * are injected), quiescence with every process up, then the audit.
 */
final class ChaosRun {
    private final ChaosSettings settings;
    private final PrintStream progress;

    ChaosRun(ChaosSettings settings, PrintStream progress) {
        this.settings = settings;
        this.progress = progress;
    }

    ChaosResult run() throws Exception {
        Files.createDirectories(settings.workDir());
        String schema = null;
        String databaseUrl = null;
        if (settings.database() == Database.POSTGRESQL) {
            schema = "baton_chaos_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(8));
            execute(settings.postgresUrl(), "CREATE SCHEMA " + schema);
            databaseUrl = settings.postgresUrl() + (settings.postgresUrl().contains("?") ? "&" : "?") + "currentSchema="
                    + schema;
            say("PostgreSQL schema " + schema);
        }
        Random random = new Random(settings.seed());
        ChaosResult result;
        boolean dropSchema = false;
        try (Cluster cluster = new Cluster(settings, databaseUrl)) {
            say("starting " + settings.nodes() + " node(s) on "
                    + settings.database().name().toLowerCase(Locale.ROOT) + " and "
                    + (settings.pool()
                            ? "a pool of the process provider, max " + settings.runners()
                            : settings.runners() + " runner(s)"));
            cluster.start();
            Workload workload = new Workload(cluster.api(), new Random(random.nextLong()), settings.workDir());
            Random faultRandom = new Random(random.nextLong());
            PoolWatch watch = settings.pool() ? cluster.watchPool() : null;
            PoolFaults poolFaults =
                    watch == null ? null : new PoolFaults(cluster, watch, new Random(random.nextLong()));
            FaultInjector faults = new FaultInjector(cluster, settings, faultRandom, poolFaults);
            Instant until = Instant.now().plus(settings.faultPhase());
            say("fault phase: " + settings.faultPhase().toSeconds() + " s, a job every "
                    + Math.round(1000 / settings.submitRate()) + " ms, a fault every ~"
                    + settings.faultInterval().toSeconds() + " s (seed " + settings.seed() + ")");
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<?> submitting = threads.submit(() -> {
                    workload.run(settings.submitRate(), until);
                    return null;
                });
                Future<?> injecting = threads.submit(() -> {
                    faults.run(until);
                    return null;
                });
                submitting.get();
                injecting.get();
            }
            faults.reviveUnexpectedExits();
            // The schedule as it happened, beside the processes' logs, for the post-mortem.
            Files.write(
                    settings.workDir().resolve("faults.log"),
                    faults.events().stream()
                            .map(f -> f.at() + " " + f.kind() + " " + f.target() + " restored " + f.restored()
                                    + " count " + f.count())
                            .toList());
            say("faults: "
                    + faults.events().stream()
                            .collect(Collectors.groupingBy(f -> f.kind().name(), Collectors.counting()))
                    + "; waiting for every job to end (up to "
                    + settings.quiesceTimeout().toSeconds() + " s)");
            Audit audit = new Audit(
                    cluster.api(),
                    cluster.runners().stream().collect(Collectors.toMap(RunnerAgent::uuid, RunnerAgent::slug)));
            Duration quiescence = audit.quiesce(settings.quiesceTimeout());
            Instant drained = Instant.now();
            // The jobs' own processes may still write an `end` line after their job was failed: let them.
            Thread.sleep(2000);
            PoolAudit.Drain drain = null;
            Map<String, String> runnerUuids = Map.of();
            if (watch != null) {
                say("queue drained; waiting up to " + PoolAudit.ORPHAN_AFTER.toSeconds()
                        + " s for every machine of the pool to be gone");
                drain = PoolAudit.drain(watch, cluster.poolDir(), drained);
                watch.close();
                watch.refresh();
                runnerUuids = poolRunners(cluster.api());
                // Executions name a machine (its directory), attempts its runner: one name for both.
                for (JsonNode m : watch.machines()) {
                    String runner = runnerUuids.get(m.path("runner").asText());
                    if (runner != null)
                        audit.runnerSlugs().put(runner, m.path("uuid").asText());
                }
            }
            List<Execution> executions = Execution.read(workload.executionLog());
            result = audit.judge(
                    workload.submissions(),
                    executions,
                    faults.events(),
                    quiescence,
                    faults.unexpectedExits(),
                    settings.workDir().resolve("jobs.json"));
            if (watch != null) {
                List<JsonNode> jobs = new ArrayList<>();
                Api.JSON
                        .readTree(settings.workDir().resolve("jobs.json").toFile())
                        .forEach(jobs::add);
                result = result.withPool(
                        PoolAudit.assess(watch.machines(), runnerUuids, jobs, poolFaults.scalerKills(), drain));
            }
            dropSchema = !settings.keep();
        } finally {
            if (schema != null && dropSchema) execute(settings.postgresUrl(), "DROP SCHEMA " + schema + " CASCADE");
        }
        Files.writeString(settings.workDir().resolve("summary.txt"), settings + "\n\n" + result.describe());
        return result;
    }

    /** Every runner a pool made (archived ones too), slug → uuid. */
    private static Map<String, String> poolRunners(Api api) throws IOException, InterruptedException {
        Map<String, String> out = new HashMap<>();
        for (JsonNode r : api.retrying("GET", "/v0/runners?archived=true&search=pool", null, Duration.ofMinutes(2)))
            out.put(r.path("slug").asText(), r.path("uuid").asText());
        return out;
    }

    private void say(String line) {
        progress.println("chaos: " + line);
    }

    /** One statement on the PostgreSQL server (only on the run's own schema). */
    private static void execute(String url, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:" + url);
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Unpacks the distribution archive as docs/runner.md says and returns its top directory. */
    static Path unpack(Path archive, Path into) throws IOException, InterruptedException {
        if (!Files.isRegularFile(archive))
            throw new IOException("no distribution archive at " + archive + " (built by ./mvnw package)");
        Files.createDirectories(into);
        Process tar = new ProcessBuilder(
                        "tar", "-xzf", archive.toString(), "-C", into.toString(), "--strip-components=1")
                .inheritIO()
                .start();
        if (tar.waitFor() != 0) throw new IOException("tar -xzf " + archive + " failed");
        return into;
    }
}
