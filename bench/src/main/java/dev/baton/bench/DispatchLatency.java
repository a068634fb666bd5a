package dev.baton.bench;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Measurement 1: a job submitted while one runner is idle and waiting; latency from the moment
 * the client starts POST /v0/run to the moment the runner's WebSocket delivers the {@code job}
 * message. Sequential: each sample waits until the previous job is processed and the runner is
 * waiting again. The server hands the job out inside the POST handler, so {@code job} usually
 * arrives before the POST's response; timing from the request start includes the job's commit.
 */
final class DispatchLatency {
    record Result(Summary submitToJob, Summary postRoundTrip, int warmup, long problems, ResourceUse resources) {}

    private DispatchLatency() {}

    static Result run(BenchServer server, int samples, int warmup) throws Exception {
        return run(server, server, "dispatch", samples, warmup);
    }

    /**
     * The same with the submission on {@code submitTo} and the runner connected to {@code runnerOn}:
     * two nodes of one cluster, the job reaching the runner's node by NOTIFY.
     */
    static Result run(
            LifecycleThroughput.Target submitTo,
            LifecycleThroughput.Target runnerOn,
            String spec,
            int samples,
            int warmup)
            throws Exception {
        LifecycleThroughput.Target server = runnerOn;
        server.createSpec(spec);
        BenchServer.Credentials creds = server.createRunner(spec, spec);
        return measure(submitTo, server, spec, server.channel(creds.slug()), creds.key(), samples, warmup);
    }

    /**
     * The samples, with the runner on {@code channel}: the server's own channel, or a router's
     * ({@link RouterDispatchLatency}) that stands between the server and the runner.
     */
    static Result measure(BenchServer server, String spec, java.net.URI channel, String key, int samples, int warmup)
            throws Exception {
        return measure(server, server, spec, channel, key, samples, warmup);
    }

    /** The samples, submitted to {@code submitTo} (another node of the cluster, or {@code server} itself). */
    static Result measure(
            LifecycleThroughput.Target submitTo,
            LifecycleThroughput.Target server,
            String spec,
            java.net.URI channel,
            String key,
            int samples,
            int warmup)
            throws Exception {
        BlockingQueue<SimRunner.Arrival> arrivals = new LinkedBlockingQueue<>();
        try (Runners runners = new Runners(1)) {
            SimRunner runner = new SimRunner(SimRunner.Mode.COMPLETE, 1, arrivals::add, null);
            runner.connect(runners.client(), channel, key).get(30, TimeUnit.SECONDS);
            runner.ready();
            long[] latency = new long[samples];
            ResourceUse.Meter meter = null;
            long[] roundTrip = new long[samples];
            for (int i = -warmup; i < samples; i++) {
                if (i == 0) meter = ResourceUse.start();
                long doneBefore = runner.completed();
                long processedBefore = server.processed();
                Thread.sleep(20); // the runner's ready has reached the server; it is idle and waiting
                long t0 = System.nanoTime();
                String job = submitTo.submit(spec);
                long t1 = System.nanoTime();
                SimRunner.Arrival arrival = arrivals.poll(30, TimeUnit.SECONDS);
                if (arrival == null) {
                    String status = server instanceof BenchServer real
                            ? real.get("/v0/projects/" + BenchServer.PROJECT + "/jobs/" + job)
                                    .get("status")
                                    .asText()
                            : "unknown (no store)";
                    throw new IllegalStateException("sample " + i + ": job " + job
                            + " did not reach the waiting runner within 30 s; the job is " + status
                            + ", runner completed " + runner.completed() + " jobs, open " + runner.isOpen()
                            + ", last problem " + runner.lastProblem());
                }
                awaitAtLeast(runner::completed, doneBefore + 1);
                awaitAtLeast(server::processed, processedBefore + 1);
                if (i >= 0) {
                    latency[i] = arrival.nanos() - t0;
                    roundTrip[i] = t1 - t0;
                }
            }
            ResourceUse used = meter.stop();
            runner.close();
            return new Result(Summary.ofNanos(latency), Summary.ofNanos(roundTrip), warmup, runner.problems(), used);
        }
    }

    static void awaitAtLeast(java.util.function.LongSupplier value, long target) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (value.getAsLong() < target) {
            if (System.nanoTime() > deadline)
                throw new IllegalStateException("timed out waiting for " + target + " (at " + value.getAsLong() + ")");
            Thread.sleep(1);
        }
    }
}
