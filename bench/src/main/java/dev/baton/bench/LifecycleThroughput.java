package dev.baton.bench;

import java.util.ArrayList;
import java.util.List;
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
    record Result(int runners, int slots, int jobs, int submitters, double seconds, double jobsPerSecond,
            double submitPerSecond, double writesPerJob, long problems, boolean finished, ResourceUse resources) {}

    private LifecycleThroughput() {}

    static int submitters(int runners, int slots) {
        return Math.max(2, Math.min(32, runners * slots));
    }

    static Result run(BenchServer server, int runnerCount, int slots, int jobs) throws Exception {
        String spec = "throughput-" + runnerCount + "x" + slots;
        server.createSpec(spec);
        List<SimRunner> runners = new ArrayList<>();
        try (Runners client = new Runners(2)) {
            List<CompletableFuture<SimRunner>> connecting = new ArrayList<>();
            for (int i = 0; i < runnerCount; i++) {
                BenchServer.Credentials c = server.createRunner(spec + "-" + i, spec);
                SimRunner r = new SimRunner(SimRunner.Mode.COMPLETE, slots, null, null);
                runners.add(r);
                connecting.add(r.connect(client.client(), server.channel(c.slug()), c.key()));
            }
            CompletableFuture.allOf(connecting.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            runners.forEach(SimRunner::ready);
            Thread.sleep(500); // every ready has reached the dispatcher

            int submitterCount = submitters(runnerCount, slots);
            long processedBefore = server.processed();
            long writesBefore = server.store().writes();
            AtomicInteger submitted = new AtomicInteger();
            ResourceUse.Meter meter = ResourceUse.start();
            long t0 = System.nanoTime();
            long[] lastSubmit = new long[1];
            try (ExecutorService submitters = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> running = new ArrayList<>();
                for (int s = 0; s < submitterCount; s++) {
                    running.add(submitters.submit(() -> {
                        while (submitted.getAndIncrement() < jobs) server.submit(spec);
                        return null;
                    }));
                }
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
                lastSubmit[0] = System.nanoTime();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(60, jobs / 10));
            while (server.processed() - processedBefore < jobs && System.nanoTime() < deadline) Thread.sleep(2);
            long done = server.processed() - processedBefore;
            ResourceUse used = meter.stop();
            boolean finished = done >= jobs;
            long end = finished ? server.lastProcessedNanos() : System.nanoTime();
            double seconds = (end - t0) / 1e9;
            long writes = server.store().writes() - writesBefore;
            long problems = runners.stream().mapToLong(SimRunner::problems).sum();
            runners.forEach(SimRunner::close);
            return new Result(runnerCount, slots, jobs, submitterCount, round(seconds), round(done / seconds),
                    round(jobs / ((lastSubmit[0] - t0) / 1e9)), round((double) writes / Math.max(1, done)), problems, finished, used);
        }
    }

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
