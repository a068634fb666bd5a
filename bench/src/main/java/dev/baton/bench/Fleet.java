package dev.baton.bench;

import dev.baton.protocol.message.Wire;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The runner fleet of the connection-scale measurement, in its own JVM: one process may hold
 * only so many sockets (the open-files limit counts both ends), and a separate process keeps the
 * server's CPU and RSS figures free of the clients. Protocol on stdout, one line each:
 * {@code CONNECTED <n> <held>}, {@code MEASURING}, then one JSON object with the results.
 *
 * <p>Arguments: ws base URL (ws://127.0.0.1:port), credentials file (lines "slug key hold"),
 * warm-up seconds, measured seconds.
 */
public final class Fleet {
    private Fleet() {}

    public static void main(String[] args) throws Exception {
        String base = args[0];
        List<String> lines = Files.readAllLines(Path.of(args[1]));
        int warmup = Integer.parseInt(args[2]);
        int duration = Integer.parseInt(args[3]);
        LatencyRecorder acks = new LatencyRecorder(5_000_000);
        List<SimRunner> fleet = new ArrayList<>();
        int holders = 0;
        // Heartbeats start the moment a runner is connected: the server closes a channel that
        // stays silent for its heartbeat timeout (30 s), and connecting 10,000 takes longer.
        ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-heartbeat");
            t.setDaemon(true);
            return t;
        });
        try (Runners runners = new Runners(2)) {
            List<CompletableFuture<SimRunner>> batch = new ArrayList<>();
            for (String line : lines) {
                String[] f = line.split(" ");
                boolean hold = f[2].equals("1");
                if (hold) holders++;
                SimRunner r = new SimRunner(SimRunner.Mode.HOLD, 1, null, acks);
                fleet.add(r);
                batch.add(r.connect(runners.client(), URI.create(base + "/v0/runners/" + f[0] + "/channel"), f[1])
                        .thenApply(x -> {
                            ticks.scheduleAtFixedRate(
                                    x::heartbeat,
                                    ThreadLocalRandom.current().nextLong(1000),
                                    1000,
                                    TimeUnit.MILLISECONDS);
                            if (hold) x.ready();
                            return x;
                        }));
                if (batch.size() == 256) {
                    CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new))
                            .get(120, TimeUnit.SECONDS);
                    batch.clear();
                }
            }
            CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
            long heldDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (fleet.stream().mapToInt(SimRunner::held).sum() < holders && System.nanoTime() < heldDeadline)
                Thread.sleep(50);
            int held = fleet.stream().mapToInt(SimRunner::held).sum();
            System.out.println("CONNECTED " + fleet.size() + " " + held);

            Thread.sleep(warmup * 1000L);
            long[] acksBeforeEach =
                    fleet.stream().mapToLong(SimRunner::acksReceived).toArray();
            long acksBefore = java.util.Arrays.stream(acksBeforeEach).sum();
            long cpuBefore = ProcessStats.cpuNanos();
            fleet.forEach(r -> r.recordHeartbeats(true));
            System.out.println("MEASURING");
            long t0 = System.nanoTime();
            Thread.sleep(duration * 1000L);
            fleet.forEach(r -> r.recordHeartbeats(false));
            double seconds = (System.nanoTime() - t0) / 1e9;
            long acksAfter = fleet.stream().mapToLong(SimRunner::acksReceived).sum();
            double cpu = (ProcessStats.cpuNanos() - cpuBefore) / 1e9 / seconds;
            ticks.shutdownNow();
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("connections", fleet.size());
            result.put("open_at_end", fleet.stream().filter(SimRunner::isOpen).count());
            int acked = 0;
            for (int i = 0; i < fleet.size(); i++) if (fleet.get(i).acksReceived() > acksBeforeEach[i]) acked++;
            result.put("acked_in_window", acked);
            result.put("holding_jobs", held);
            result.put("seconds", seconds);
            result.put("acks_per_second", (acksAfter - acksBefore) / seconds);
            result.put("ack_latency", Summary.ofNanos(acks.snapshot()));
            result.put("problems", fleet.stream().mapToLong(SimRunner::problems).sum());
            result.put(
                    "last_problem",
                    fleet.stream()
                            .map(SimRunner::lastProblem)
                            .filter(p -> p != null)
                            .findFirst()
                            .orElse(null));
            result.put("client_cpu_cores", cpu);
            result.put("client_rss_mib", ProcessStats.rssMiB());
            System.out.println(Wire.encode(result));
            System.out.flush();
            fleet.forEach(SimRunner::close);
            Thread.sleep(500);
        }
        System.exit(0);
    }
}
