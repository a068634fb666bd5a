package dev.baton.bench.jmh;

import dev.baton.bench.OneClaim;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Claim selection on SQLite with a few thousand pending jobs spread over eight specs: the
 * runner serves two of them. {@code claimAndRequeue} claims the best job and puts it back (two
 * write transactions, so the queue stays the same size); {@code claimNothing} is a runner whose
 * spec has no pending job (the scan that finds nothing, one transaction).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ClaimBenchmark {
    @Param({"4000"})
    public int pending;

    private Path dir;
    private Store store;
    private long runner;
    private long idleRunner;

    @Setup(Level.Trial)
    public void fill() throws IOException {
        dir = Files.createTempDirectory("baton-jmh-claim-");
        store = StoreFactory.open(null, dir);
        Instant now = Instant.now();
        Organization org = store.organizations().createOrganization("Jmh", Slug.of("jmh"), PlanTier.parse("team"), now);
        Project project = store.organizations().createProject(org.id(), "Jmh", Slug.of("jmh"), now);
        List<Long> specs = new ArrayList<>();
        for (int s = 0; s < 9; s++) {
            specs.add(store.specs()
                    .createSpec(
                            "spec " + s,
                            Slug.of("spec-" + s),
                            Architecture.parse("x86_64"),
                            1,
                            1L << 30,
                            1L << 33,
                            false,
                            now)
                    .id());
        }
        runner = store.runners()
                .createRunner("jmh", Slug.of("jmh"), RunnerKey.generate().hash(), now)
                .id();
        store.specs().addRunnerSpec(runner, specs.get(0));
        store.specs().addRunnerSpec(runner, specs.get(1));
        idleRunner = store.runners()
                .createRunner("idle", Slug.of("idle"), RunnerKey.generate().hash(), now)
                .id();
        store.specs().addRunnerSpec(idleRunner, specs.get(8));
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
        for (int i = 0; i < pending; i++) {
            Instant t = now.plusMillis(i);
            store.runs()
                    .createRun(
                            new NewReport(project.id(), null, null, "raw", t, t, null),
                            new NewJob(
                                    specs.get(i % 8),
                                    "127.0.0.1",
                                    config,
                                    3600,
                                    org.plan().priority(),
                                    RetryPolicy.NONE),
                            org.id(),
                            t)
                    .job();
        }
    }

    @Benchmark
    public Job claimAndRequeue() {
        Job job = OneClaim.claim(store, runner, Instant.now()).orElseThrow();
        store.transitions()
                .requeue(job.uuid(), job.lease(), AttemptOutcome.ACCEPT_TIMEOUT, Integer.MAX_VALUE, Instant.now());
        return job;
    }

    @Benchmark
    public boolean claimNothing() {
        return OneClaim.claim(store, idleRunner, Instant.now()).isPresent();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        store.close();
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
