package dev.baton.bench;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measurement 2: jobs per second through the whole lifecycle (submit over HTTP → claimed → job
 * on the WebSocket → running → completed → processed) with R runners of S slots each, all
 * waiting before the first submission. Submitters are concurrent HTTP clients; the clock stops
 * when the last job is processed (the server does that on a background thread after acking
 * {@code completed}, seen through the counting store).
 */
final class LifecycleThroughput {
    record Result(
            int runners,
            int slots,
            int jobs,
            int submitters,
            double seconds,
            double jobsPerSecond,
            double submitPerSecond,
            double writesPerJob,
            double readsPerJob,
            Map<String, Double> readsPerJobByMethod,
            long problems,
            boolean finished,
            ResourceUse resources) {}

    /**
     * What the phase drives: the real server ({@link BenchServer}) or the transport floor's minimal
     * one ({@link FloorServer}). The harness side (submitters, simulated runners, the clock) is
     * the same for both, so their figures differ only by the server.
     */
    interface Target {
        void createSpec(String slug);

        BenchServer.Credentials createRunner(String name, String spec);

        URI channel(String slug);

        /** POST /v0/run with {@link BenchServer#runBody}; the job's uuid. */
        String submit(String spec);

        /** Jobs processed so far (the floor: jobs whose {@code completed} arrived). */
        long processed();

        long lastProcessedNanos();

        /** Store calls so far; 0 where there is no store. */
        long storeWrites();

        long storeReads();

        Map<String, Long> storeReadsByMethod();
    }

    /** Rounds run in this process: a repeated R (a warm-up round) gets a spec of its own. */
    private static final AtomicInteger ROUNDS = new AtomicInteger();

    private LifecycleThroughput() {}

    static int submitters(int runners, int slots) {
        return Math.max(2, Math.min(32, runners * slots));
    }

    static Result run(Target server, int runnerCount, int slots, int jobs) throws Exception {
        return run(List.of(server), runnerCount, slots, jobs, () -> {});
    }

    /** The same, calling {@code atStart} right before the first submission (after the runners wait), e.g. to read a database's counters. */
    static Result run(Target server, int runnerCount, int slots, int jobs, Runnable atStart) throws Exception {
        return run(List.of(server), runnerCount, slots, jobs, atStart);
    }

    /**
     * The same over the nodes of one cluster: runner i connects to node i mod n, submitter s
     * submits through node s mod n, and the jobs processed and store writes are summed over the
     * nodes (each node processes the jobs whose {@code completed} it received).
     */
    static Result run(List<? extends Target> nodes, int runnerCount, int slots, int jobs) throws Exception {
        return run(nodes, runnerCount, slots, jobs, () -> {});
    }

    private static Result run(List<? extends Target> nodes, int runnerCount, int slots, int jobs, Runnable atStart)
            throws Exception {
        Target server = nodes.getFirst();
        String spec = "throughput-" + runnerCount + "x" + slots + (nodes.size() > 1 ? "-" + nodes.size() + "nodes" : "")
                + "-" + ROUNDS.incrementAndGet();
        server.createSpec(spec);
        List<SimRunner> runners = new ArrayList<>();
        try (Runners client = new Runners(2)) {
            List<CompletableFuture<SimRunner>> connecting = new ArrayList<>();
            for (int i = 0; i < runnerCount; i++) {
                BenchServer.Credentials c = server.createRunner(spec + "-" + i, spec);
                SimRunner r = new SimRunner(SimRunner.Mode.COMPLETE, slots, null, null);
                runners.add(r);
                connecting.add(
                        r.connect(client.client(), nodes.get(i % nodes.size()).channel(c.slug()), c.key()));
            }
            CompletableFuture.allOf(connecting.toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
            runners.forEach(SimRunner::ready);
            Thread.sleep(500); // every ready has reached the dispatcher

            int submitterCount = submitters(runnerCount, slots);
            atStart.run();
            long processedBefore = processed(nodes);
            long writesBefore = nodes.stream().mapToLong(Target::storeWrites).sum();
            long readsBefore = nodes.stream().mapToLong(Target::storeReads).sum();
            Map<String, Long> readsByMethodBefore = readsByMethod(nodes);
            AtomicInteger submitted = new AtomicInteger();
            ResourceUse.Meter meter = ResourceUse.start();
            long t0 = System.nanoTime();
            long[] lastSubmit = new long[1];
            try (ExecutorService submitters = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> running = new ArrayList<>();
                for (int s = 0; s < submitterCount; s++) {
                    Target via = nodes.get(s % nodes.size());
                    running.add(submitters.submit(() -> {
                        while (submitted.getAndIncrement() < jobs) via.submit(spec);
                        return null;
                    }));
                }
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
                lastSubmit[0] = System.nanoTime();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(60, jobs / 10));
            while (processed(nodes) - processedBefore < jobs && System.nanoTime() < deadline) Thread.sleep(2);
            long done = processed(nodes) - processedBefore;
            ResourceUse used = meter.stop();
            boolean finished = done >= jobs;
            long end = finished
                    ? nodes.stream().mapToLong(Target::lastProcessedNanos).max().orElseThrow()
                    : System.nanoTime();
            double seconds = (end - t0) / 1e9;
            long writes = nodes.stream().mapToLong(Target::storeWrites).sum() - writesBefore;
            long reads = nodes.stream().mapToLong(Target::storeReads).sum() - readsBefore;
            Map<String, Double> readsByMethod = new TreeMap<>();
            double perJob = Math.max(1, done);
            readsByMethod(nodes).forEach((method, n) -> {
                long delta = n - readsByMethodBefore.getOrDefault(method, 0L);
                if (delta > 0) readsByMethod.put(method, round(delta / perJob));
            });
            long problems = runners.stream().mapToLong(SimRunner::problems).sum();
            runners.forEach(SimRunner::close);
            return new Result(
                    runnerCount,
                    slots,
                    jobs,
                    submitterCount,
                    round(seconds),
                    round(done / seconds),
                    round(jobs / ((lastSubmit[0] - t0) / 1e9)),
                    round((double) writes / Math.max(1, done)),
                    round(reads / perJob),
                    readsByMethod,
                    problems,
                    finished,
                    used);
        }
    }

    /** Read calls per Store method, summed over the nodes. */
    private static Map<String, Long> readsByMethod(List<? extends Target> nodes) {
        Map<String, Long> sum = new TreeMap<>();
        for (Target n : nodes) n.storeReadsByMethod().forEach((k, v) -> sum.merge(k, v, Long::sum));
        return sum;
    }

    private static long processed(List<? extends Target> nodes) {
        return nodes.stream().mapToLong(Target::processed).sum();
    }

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
