package dev.baton.bench;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.store.Attempt;
import dev.baton.store.Job;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolRunner;
import dev.baton.store.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code bench/run pools} (issue 43; docs/benchmarks/pools.md): a pool of the {@code process}
 * provider whose machines are real {@code baton runner up --ephemeral} processes (this clone's
 * {@code cli/target/baton.jar}, each on a JVM of its own) against a real server on SQLite.
 *
 * <ol>
 *   <li>cold start: {@code --cold N} jobs one at a time on an empty pool (each waits for the pool
 *       to be back at zero): submit → running, and the runner's own start-up (the machine's start
 *       to its runner's connection) for each, p50;
 *   <li>burst: {@code --jobs N} submitted at once on the empty pool ({@code --max} 4): sampled
 *       every 100 ms, the machines started and not yet running a job never exceed the jobs
 *       waiting plus {@code min_idle} (0); afterwards every job's attempts are checked against the
 *       machine started for it (bound mode: none runs on a machine started for another); and 60 s
 *       after the last job, live machines and machine processes still running are counted.
 * </ol>
 */
final class PoolBench {
    private PoolBench() {}

    static void run(String[] args) throws Exception {
        int jobs = 200;
        int max = 4;
        int cold = 5;
        long idleTimeout = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                case "--max" -> max = Integer.parseInt(args[++i]);
                case "--cold" -> cold = Integer.parseInt(args[++i]);
                case "--idle-timeout" -> idleTimeout = Long.parseLong(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (bench/run pools [--jobs N] [--max N] [--cold N] [--idle-timeout S])");
            }
        }
        Path root = Path.of("").toAbsolutePath();
        Path jar = root.resolve("cli/target/baton.jar");
        if (!Files.isRegularFile(jar))
            throw new IllegalStateException("no " + jar + ": run ./baton --version once to build it");
        Path work = Files.createTempDirectory("baton-bench-pools-");
        Path launcher = work.resolve("baton");
        String javaCommand = ProcessHandle.current().info().command().orElse("java");
        Files.writeString(
                launcher,
                "#!/bin/sh\nexec '" + javaCommand + "' -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar '" + jar
                        + "' \"$@\"\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (BenchServer server = BenchServer.start(work.resolve("server"), null)) {
            Store store = server.store().store();
            server.createSpec("pooled");
            server.post(
                    "/v0/pools",
                    Map.of(
                            "slug",
                            "burst",
                            "spec",
                            "pooled",
                            "max",
                            max,
                            "idle_timeout_seconds",
                            idleTimeout,
                            "boot_timeout_seconds",
                            120,
                            "provider",
                            "process",
                            "provider_config",
                            Map.of(
                                    "command",
                                    launcher.toString(),
                                    "work_dir",
                                    work.resolve("machines").toString(),
                                    "args",
                                    "--executor process --allow-no-sandbox")));
            Pool pool = store.pools().findPool("burst").orElseThrow();

            // 1. Cold start, one job at a time.
            List<Double> submitToRunning = new ArrayList<>();
            List<Double> boot = new ArrayList<>();
            for (int i = 0; i < cold; i++) {
                String uuid = server.submit("pooled");
                Job job = awaitJob(store, uuid, JobStatus.PROCESSED, Duration.ofMinutes(3));
                submitToRunning.add(seconds(Duration.between(job.created(), job.started())));
                awaitEmpty(store, pool, Duration.ofMinutes(2));
                PoolMachine m = store.pools().machines(pool.id(), 50).stream()
                        .filter(x -> x.jobId() != null && x.jobId() == job.id())
                        .findFirst()
                        .orElseThrow();
                if (m.registered() != null) boot.add(seconds(Duration.between(m.started(), m.registered())));
            }
            System.out.printf(
                    "cold: submit→running p50 %.2f s (each: %s); machine start→runner connected p50 %.2f s (each: %s)%n",
                    p50(submitToRunning), submitToRunning, p50(boot), boot);

            // 2. The burst.
            AtomicBoolean sampling = new AtomicBoolean(true);
            AtomicInteger samples = new AtomicInteger();
            AtomicInteger violations = new AtomicInteger();
            AtomicInteger mostStarting = new AtomicInteger();
            AtomicInteger mostLive = new AtomicInteger();
            String[] violation = {null};
            Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                while (sampling.get()) {
                    // Pending first, then machines: a machine that takes its job in between is
                    // counted busy, never as one too many.
                    int waiting = store.runs().pendingJobs().size();
                    int notRunning = 0;
                    List<PoolMachine> live = store.pools().liveMachines(pool.id());
                    for (PoolMachine m : live) {
                        PoolRunner r = m.runnerId() == null
                                ? null
                                : store.pools().poolRunner(m.runnerId()).orElse(null);
                        if (m.state() != dev.baton.store.PoolMachineState.STOPPING
                                && (r == null || (r.job() == null && !r.spent()))) notRunning++;
                    }
                    samples.incrementAndGet();
                    mostStarting.accumulateAndGet(notRunning, Math::max);
                    mostLive.accumulateAndGet(live.size(), Math::max);
                    if (notRunning > waiting) {
                        violations.incrementAndGet();
                        violation[0] = notRunning + " machines not running a job, " + waiting + " jobs waiting";
                    }
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            long t0 = System.nanoTime();
            List<String> burst = new ArrayList<>();
            for (int i = 0; i < jobs; i++) burst.add(server.submit("pooled"));
            long submitted = System.nanoTime();
            AtomicLong lastDone = new AtomicLong();
            for (String uuid : burst) awaitJob(store, uuid, JobStatus.PROCESSED, Duration.ofMinutes(30));
            lastDone.set(System.nanoTime());
            double burstSeconds = (lastDone.get() - t0) / 1e9;

            // 60 s after the last job: what is still running?
            Thread.sleep(60_000);
            sampling.set(false);
            sampler.join();
            List<PoolMachine> all = store.pools().machines(pool.id(), 100_000);
            long liveAfter = all.stream().filter(m -> m.ended() == null).count();
            long processesAfter = all.stream()
                    .filter(m -> m.providerId() != null)
                    .filter(m -> ProcessHandle.of(Long.parseLong(m.providerId().split("@")[0]))
                            .filter(ProcessHandle::isAlive)
                            .isPresent())
                    .count();

            // Bound mode: each attempt's runner against the machine started for its job.
            Map<Long, PoolMachine> byRunner = new HashMap<>();
            for (PoolMachine m : all) if (m.runnerId() != null) byRunner.put(m.runnerId(), m);
            int stolen = 0;
            int attempts = 0;
            for (String uuid : burst) {
                Job job = store.runs().findJob(JobUuid.parse(uuid)).orElseThrow();
                for (Attempt a : store.runs().attempts(job.id())) {
                    attempts++;
                    PoolMachine m = byRunner.get(a.runnerId());
                    if (m != null && m.jobId() != null && m.jobId() != job.id()) stolen++;
                }
            }
            long started = all.stream()
                    .filter(m -> m.started().isAfter(java.time.Instant.ofEpochMilli(0)))
                    .count();
            Pool after = store.pools().findPool("burst").orElseThrow();
            System.out.printf(
                    "burst: %d jobs submitted in %.1f s, all processed %.1f s after the first submission;"
                            + " %d machines started (%d failed starts), at most %d live (max %d);"
                            + " %d attempts, %d on a machine started for another job%n",
                    jobs,
                    (submitted - t0) / 1e9,
                    burstSeconds,
                    started - cold,
                    after.failedStarts(),
                    mostLive.get(),
                    max,
                    attempts,
                    stolen);
            System.out.printf(
                    "invariant: %d samples, machines not yet running a job at most %d, above the jobs waiting"
                            + " (+ min_idle 0) in %d samples%s%n",
                    samples.get(),
                    mostStarting.get(),
                    violations.get(),
                    violation[0] == null ? "" : " (last: " + violation[0] + ")");
            System.out.printf(
                    "60 s after the last job: %d live machines, %d machine processes running%n",
                    liveAfter, processesAfter);
        }
    }

    private static Job awaitJob(Store store, String uuid, JobStatus status, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        JobUuid id = JobUuid.parse(uuid);
        while (true) {
            Job job = store.runs().findJob(id).orElseThrow();
            if (job.status() == status) return job;
            if ((job.status() == JobStatus.FAILED || job.status() == JobStatus.CANCELED) && job.status() != status)
                throw new IllegalStateException("job " + uuid + " ended " + job.status() + ": " + job.error());
            if (System.nanoTime() > deadline)
                throw new IllegalStateException("job " + uuid + " not " + status + " within " + within);
            Thread.sleep(50);
        }
    }

    private static void awaitEmpty(Store store, Pool pool, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!store.pools().liveMachines(pool.id()).isEmpty()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("the pool did not drain");
            Thread.sleep(100);
        }
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private static double p50(List<Double> xs) {
        if (xs.isEmpty()) return Double.NaN;
        List<Double> sorted = new ArrayList<>(xs);
        sorted.sort(Double::compare);
        return sorted.get((sorted.size() - 1) / 2);
    }
}
