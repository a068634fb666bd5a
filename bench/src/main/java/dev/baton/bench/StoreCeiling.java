package dev.baton.bench;

import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Job;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measurement 3: the store's own ceiling for the same lifecycle, without the server: the same
 * statements the server issues per job (createRun, claim, start, complete, process) straight
 * against a fresh store of the same dialect, from R×S concurrent workers (capped at 100), each
 * acting for one of R runners. No HTTP, WebSocket, JSON, pull token or output file: what is
 * left is what the database can commit.
 */
final class StoreCeiling {
    record Result(
            int workers, int jobs, double seconds, double jobsPerSecond, long emptyClaims, ResourceUse resources) {}

    private StoreCeiling() {}

    static int workers(int runners, int slots) {
        return Math.max(1, Math.min(100, runners * slots));
    }

    static Result run(BenchDatabase database, Path dataDir, int runnerCount, int slots, int jobs) throws Exception {
        try (Store store = StoreFactory.open(database.freshUrl(), dataDir)) {
            Instant now = Instant.now();
            Organization org = store.organizations()
                    .createOrganization("Ceiling", Slug.of("ceiling"), PlanTier.parse("team"), now);
            Project project = store.organizations().createProject(org.id(), "Ceiling", Slug.of("ceiling"), now);
            Spec spec = store.specs()
                    .createSpec(
                            "ceiling",
                            Slug.of("ceiling"),
                            Architecture.parse("x86_64"),
                            1,
                            1L << 30,
                            1L << 33,
                            false,
                            now);
            List<Long> runnerIds = new ArrayList<>();
            for (int i = 0; i < runnerCount; i++) {
                long id = store.runners()
                        .createRunner(
                                "ceiling " + i,
                                Slug.of("ceiling-" + i),
                                RunnerKey.generate().hash(),
                                now)
                        .id();
                store.specs().addRunnerSpec(id, spec.id());
                runnerIds.add(id);
            }
            JobConfig config = new JobConfig(
                    "http://127.0.0.1:1",
                    project.uuid(),
                    ImageDigest.of("sha256:" + "b".repeat(64)),
                    null,
                    List.of("true"),
                    Map.of(),
                    JobTimeout.of(3600),
                    List.of(),
                    1);
            int workerCount = workers(runnerCount, slots);
            AtomicInteger next = new AtomicInteger();
            AtomicLong empty = new AtomicLong();
            ResourceUse.Meter meter = ResourceUse.start();
            long t0 = System.nanoTime();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> running = new ArrayList<>();
                for (int w = 0; w < workerCount; w++) {
                    long runnerId = runnerIds.get(w % runnerIds.size());
                    running.add(pool.submit(() -> {
                        while (next.getAndIncrement() < jobs) {
                            Instant t = Instant.now();
                            store.runs()
                                    .createRun(
                                            new NewReport(project.id(), null, null, "raw", t, t, null),
                                            new NewJob(
                                                    spec.id(),
                                                    "127.0.0.1",
                                                    config,
                                                    3600,
                                                    org.plan().priority(),
                                                    RetryPolicy.NONE),
                                            org.id(),
                                            t)
                                    .job();
                            Optional<Job> claimed;
                            while ((claimed = OneClaim.claim(store, runnerId, Instant.now())).isEmpty())
                                empty.incrementAndGet();
                            Job job = claimed.get();
                            store.transitions().start(job.uuid(), job.lease(), Instant.now());
                            store.transitions().complete(job.uuid(), job.lease(), Instant.now());
                            store.transitions().process(job.uuid(), "[]", Instant.now());
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            ResourceUse used = meter.stop();
            return new Result(
                    workerCount,
                    jobs,
                    LifecycleThroughput.round(seconds),
                    LifecycleThroughput.round(jobs / seconds),
                    empty.get(),
                    used);
        }
    }
}
