package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measurement 4: N connected runners heartbeating once a second, one in ten holding a running
 * job (its heartbeats name the job and lease), the rest idle (bare heartbeats). The runners are
 * a {@link Fleet} in a child JVM; this process is then the server alone, so its CPU time and RSS
 * are the server's (plus an idle harness thread). Database writes per second come from the
 * counting store (write calls, each one transaction) and, on PostgreSQL, pg_stat_database's
 * xact_commit delta.
 */
final class ConnectionScale {
    record Result(
            int connections,
            int holdingJobs,
            int connected,
            int openAtEnd,
            int ackedInWindow,
            double seconds,
            double acksPerSecond,
            Summary ackLatency,
            ResourceUse server,
            double serverRssMib,
            double serverPeakRssMib,
            double serverHeapUsedMib,
            double storeWritesPerSecond,
            Map<String, Long> storeWritesByMethod,
            double heartbeatRowsPerSecond,
            Double pgCommitsPerSecond,
            double clientCpuCores,
            double clientRssMib,
            long problems,
            String lastProblem) {}

    private ConnectionScale() {}

    static Result run(
            BenchServer server, BenchDatabase database, Path work, int connections, int warmupSeconds, int seconds)
            throws Exception {
        String spec = "scale";
        server.createSpec(spec);
        int holders = Math.max(1, connections / 10);
        String[] lines = new String[connections];
        AtomicInteger next = new AtomicInteger();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> creating = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                creating.add(pool.submit(() -> {
                    int i;
                    while ((i = next.getAndIncrement()) < connections) {
                        boolean hold = i < holders;
                        BenchServer.Credentials c = server.createRunner("scale " + i, hold ? spec : null);
                        lines[i] = c.slug() + " " + c.key() + " " + (hold ? 1 : 0);
                    }
                    return null;
                }));
            }
            for (Future<?> f : creating) f.get(30, TimeUnit.MINUTES);
        }
        for (int i = 0; i < holders; i++) server.submit(spec);
        Path credentials = work.resolve("fleet-credentials");
        Files.write(credentials, List.of(lines));

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String base = server.channel("x").toString().replaceFirst("/v0/runners/x/channel$", "");
        Process child = new ProcessBuilder(
                        java,
                        "-Xmx2g",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Fleet.class.getName(),
                        base,
                        credentials.toString(),
                        String.valueOf(warmupSeconds),
                        String.valueOf(seconds))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            if (line == null || !line.startsWith("CONNECTED"))
                throw new IllegalStateException("fleet did not connect: " + line);
            int connected = Integer.parseInt(line.split(" ")[1]);
            line = out.readLine();
            if (!"MEASURING".equals(line)) throw new IllegalStateException("fleet said " + line);
            ResourceUse.Meter meter = ResourceUse.start();
            long writes0 = server.store().writes();
            Map<String, Long> byMethod0 = server.store().writesByMethod();
            long rows0 = server.store().heartbeatRows();
            OptionalLong commits0 = database.commits();
            long t0 = System.nanoTime();
            line = out.readLine();
            if (line == null) throw new IllegalStateException("fleet ended without results");
            double wall = (System.nanoTime() - t0) / 1e9;
            ResourceUse used = meter.stop();
            double writes = (server.store().writes() - writes0) / wall;
            Map<String, Long> byMethod = new java.util.TreeMap<>();
            server.store().writesByMethod().forEach((k, v) -> {
                long d = v - byMethod0.getOrDefault(k, 0L);
                if (d > 0) byMethod.put(k, d);
            });
            double rows = (server.store().heartbeatRows() - rows0) / wall;
            OptionalLong commits1 = database.commits();
            Double commits = commits0.isPresent() && commits1.isPresent()
                    ? (commits1.getAsLong() - commits0.getAsLong()) / wall
                    : null;
            JsonNode r = Wire.mapper().readTree(line);
            if (!child.waitFor(60, TimeUnit.SECONDS)) child.destroyForcibly();
            return new Result(
                    connections,
                    r.get("holding_jobs").asInt(),
                    connected,
                    r.get("open_at_end").asInt(),
                    r.get("acked_in_window").asInt(),
                    round(r.get("seconds").asDouble()),
                    round(r.get("acks_per_second").asDouble()),
                    Wire.mapper().treeToValue(r.get("ack_latency"), Summary.class),
                    used,
                    round(ProcessStats.rssMiB()),
                    round(ProcessStats.peakRssMiB()),
                    ProcessStats.heapUsedMiB(),
                    round(writes),
                    byMethod,
                    round(rows),
                    commits == null ? null : round(commits),
                    round(r.get("client_cpu_cores").asDouble()),
                    round(r.get("client_rss_mib").asDouble()),
                    r.get("problems").asLong(),
                    r.hasNonNull("last_problem") ? r.get("last_problem").asText() : null);
        } finally {
            if (child.isAlive()) child.destroyForcibly();
        }
    }

    private static double round(double v) {
        return LifecycleThroughput.round(v);
    }
}
