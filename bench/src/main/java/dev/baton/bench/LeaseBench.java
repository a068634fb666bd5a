package dev.baton.bench;

import dev.baton.protocol.message.Wire;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code bench/run leases}: the NATS transport (leases on NATS JetStream) beside the WebSocket channel (the runner
 * channel) on one server, in one run: a nats-server with JetStream on a free port, the real server
 * offering two specs on it, and simulated runners of both transports ({@link LeaseSim} pulls from
 * the broker and posts AckLease and Complete; {@link SimRunner} speaks the channel). Measured:
 * submit → {@code LeaseGranted} at an idle runner (pulling, waiting) beside submit → {@code job}
 * on the channel, and lifecycle jobs/s through the broker beside the channel's.
 */
final class LeaseBench {
    static final String LATENCY_SPEC = "lease-latency";
    static final String LIFECYCLE_SPEC = "lease-lifecycle";

    private LeaseBench() {}

    static Path run(BenchOptions o) throws Exception {
        Path work = Files.createTempDirectory("baton-bench-leases-");
        Map<String, Object> json = Bench.header(o);
        List<String[]> table = new ArrayList<>();
        int runners = o.runners().getLast();
        int warmup = Math.max(3, o.samples() / 10);
        try (BenchNats nats = BenchNats.start(work.resolve("nats"));
                BenchDatabase database = new BenchDatabase(o.database(), o.pgUrl(), o.pgUser())) {
            json.put("database", database.describe(work.resolve("server")));
            try (BenchServer server = BenchServer.startWithBroker(
                    work.resolve("server"), database.freshUrl(), nats.url(), Set.of(LATENCY_SPEC, LIFECYCLE_SPEC))) {
                Bench.log("the NATS transport, submit → LeaseGranted at an idle runner: " + o.samples() + " samples");
                Latency a = latency(server, nats.url(), o.samples(), warmup);
                json.put("transport_a_submit_to_lease_granted", a.summary());
                table.add(Bench.row(
                        "A submit → LeaseGranted, idle runner (n=" + a.summary().count() + ")",
                        Bench.summary(a.summary())));
                table.add(Bench.row("  process during samples", Bench.use(a.resources())));
                Bench.log("the WebSocket channel, submit → job at an idle runner: " + o.samples() + " samples");
                DispatchLatency.Result b = DispatchLatency.run(server, o.samples(), warmup);
                json.put("transport_b_submit_to_job", b);
                table.add(Bench.row(
                        "B submit → job, idle runner (n=" + b.submitToJob().count() + ")",
                        Bench.summary(b.submitToJob())));
                table.add(Bench.row("  process during samples", Bench.use(b.resources())));

                Bench.log("the NATS transport lifecycle: " + runners + " runners x 1 slot, " + o.jobs() + " jobs");
                Throughput ta = throughput(server, nats.url(), runners, o.jobs());
                json.put("transport_a_lifecycle", ta.asMap());
                table.add(Bench.row("A lifecycle R=" + runners + " S=1", ta.describe()));
                Bench.log("the WebSocket channel lifecycle: " + runners + " runners x 1 slot, " + o.jobs() + " jobs");
                LifecycleThroughput.Result tb = LifecycleThroughput.run(server, runners, 1, o.jobs());
                json.put("transport_b_lifecycle", tb);
                table.add(Bench.row(
                        "B lifecycle R=" + runners + " S=1",
                        tb.jobsPerSecond() + " jobs/s (" + tb.jobs() + " jobs in " + tb.seconds() + " s"
                                + (tb.finished() ? "" : ", UNFINISHED") + "; "
                                + Bench.use(tb.resources(), tb.jobsPerSecond()) + ")"));
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
        Path file = o.out()
                .resolve("leases-" + o.database().name().toLowerCase(java.util.Locale.ROOT) + "-" + stamp
                        + (o.smoke() ? "-smoke" : "") + ".json");
        Files.writeString(file, Wire.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n");
        return file;
    }

    record Latency(Summary summary, ResourceUse resources) {}

    /**
     * Sequential samples with one lease runner waiting in a pull: from the start of
     * {@code POST /v0/run} until its {@code LeaseGranted} is in the runner's hands. Each sample
     * waits until the job is processed (the runner acked and completed it) before the next.
     */
    static Latency latency(BenchServer server, String natsUrl, int samples, int warmup) throws Exception {
        server.createSpec(LATENCY_SPEC);
        BenchServer.Credentials creds = server.createRunner(LATENCY_SPEC, LATENCY_SPEC);
        BlockingQueue<Long> arrivals = new LinkedBlockingQueue<>();
        try (LeaseSim runner = LeaseSim.start(server, natsUrl, LATENCY_SPEC, creds, arrivals::add)) {
            long[] latency = new long[samples];
            ResourceUse.Meter meter = null;
            for (int i = -warmup; i < samples; i++) {
                if (i == 0) meter = ResourceUse.start();
                long processedBefore = server.processed();
                Thread.sleep(20); // the runner is back in its pull, idle
                long t0 = System.nanoTime();
                String job = server.submit(LATENCY_SPEC);
                Long arrived = arrivals.poll(30, TimeUnit.SECONDS);
                if (arrived == null)
                    throw new IllegalStateException(
                            "sample " + i + ": job " + job + " was not offered to the waiting runner within 30 s");
                DispatchLatency.awaitAtLeast(server::processed, processedBefore + 1);
                if (i >= 0) latency[i] = arrived - t0;
            }
            return new Latency(Summary.ofNanos(latency), meter.stop());
        }
    }

    record Throughput(
            int runners,
            int jobs,
            int submitters,
            double seconds,
            double jobsPerSecond,
            long problems,
            boolean finished,
            ResourceUse resources) {
        Map<String, Object> asMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("runners", runners);
            m.put("jobs", jobs);
            m.put("submitters", submitters);
            m.put("seconds", seconds);
            m.put("jobs_per_second", jobsPerSecond);
            m.put("problems", problems);
            m.put("finished", finished);
            m.put("resources", resources);
            return m;
        }

        String describe() {
            return jobsPerSecond + " jobs/s (" + jobs + " jobs in " + seconds + " s, " + submitters + " submitters"
                    + (finished ? "" : ", UNFINISHED") + (problems > 0 ? ", " + problems + " protocol problems" : "")
                    + "; "
                    + Bench.use(resources, jobsPerSecond) + ")";
        }
    }

    /**
     * {@code runners} lease runners of one slot each, waiting in their pulls; {@code jobs}
     * submitted by concurrent clients as fast as the server takes them; the clock stops when the
     * last one is processed.
     */
    static Throughput throughput(BenchServer server, String natsUrl, int runnerCount, int jobs) throws Exception {
        server.createSpec(LIFECYCLE_SPEC);
        List<LeaseSim> sims = new ArrayList<>();
        int submitters = LifecycleThroughput.submitters(runnerCount, 1);
        try {
            for (int i = 0; i < runnerCount; i++) {
                sims.add(LeaseSim.start(
                        server,
                        natsUrl,
                        LIFECYCLE_SPEC,
                        server.createRunner(LIFECYCLE_SPEC + "-" + i, LIFECYCLE_SPEC),
                        t -> {}));
            }
            long processedBefore = server.processed();
            AtomicInteger next = new AtomicInteger();
            ResourceUse.Meter meter = ResourceUse.start();
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newFixedThreadPool(submitters)) {
                List<Future<?>> submitting = new ArrayList<>();
                for (int s = 0; s < submitters; s++) {
                    submitting.add(pool.submit(() -> {
                        while (next.getAndIncrement() < jobs) server.submit(LIFECYCLE_SPEC);
                        return null;
                    }));
                }
                for (Future<?> f : submitting) f.get();
            }
            boolean finished = true;
            try {
                awaitProcessed(server, processedBefore + jobs);
            } catch (IllegalStateException timedOut) {
                finished = false;
            }
            long t1 = finished ? server.lastProcessedNanos() : System.nanoTime();
            ResourceUse used = meter.stop();
            double seconds = (t1 - t0) / 1e9;
            long problems = sims.stream().mapToLong(LeaseSim::problems).sum();
            return new Throughput(
                    runnerCount,
                    jobs,
                    submitters,
                    LifecycleThroughput.round(seconds),
                    LifecycleThroughput.round((server.processed() - processedBefore) / seconds),
                    problems,
                    finished,
                    used);
        } finally {
            for (LeaseSim s : sims) s.close();
        }
    }

    /** Waits while jobs are still being processed; gives up after 30 s without one. */
    private static void awaitProcessed(BenchServer server, long target) throws InterruptedException {
        long last = server.processed();
        long lastChange = System.nanoTime();
        while (server.processed() < target) {
            long now = server.processed();
            if (now != last) {
                last = now;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > TimeUnit.SECONDS.toNanos(30)) {
                throw new IllegalStateException("stalled at " + now + " of " + target);
            }
            Thread.sleep(5);
        }
    }
}
