package dev.baton.dispatch.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.core.adapter.Adapters;
import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.JobOutput;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.StoreCalls;
import dev.baton.store.ClaimFilter;
import dev.baton.store.ClaimRequest;
import dev.baton.store.Job;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Result processing on a real SQLite store (issue 13): a job completed on this node is parsed from
 * the output its `completed` just stored, not read back from the output store; startup recovery
 * still reads it from there.
 */
class ResultProcessorTest {
    private static final JobOutput OUTPUT = new JobOutput(
            List.of(new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":4.2}}}", "", Map.of())), null);

    @TempDir
    Path dir;

    Store store;
    final AtomicInteger reads = new AtomicInteger();
    final OutputStore counting = new OutputStore() {
        @Override
        public void put(ProjectUuid project, JobUuid job, int attempt, JobOutput output) {}

        @Override
        public Optional<JobOutput> get(ProjectUuid project, JobUuid job, int attempt) {
            reads.incrementAndGet();
            return Optional.of(OUTPUT);
        }

        @Override
        public void remove(ProjectUuid project, JobUuid job, int attempt) {}
    };

    @BeforeEach
    void open() {
        store = StoreFactory.open("sqlite:" + dir.resolve("baton.db"), dir);
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aJobCompletedHereIsParsedFromTheOutputItStoredWithoutReadingItBack() {
        Job job = completedJob();
        new ResultProcessor(store, counting, new Adapters(), new BatonMetrics(), Clock.systemUTC(), new Changes())
                .processLater(job, OUTPUT);

        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.runs().findJob(job.uuid()).orElseThrow().status() == JobStatus.PROCESSED);
        assertThat(store.runs().findReport(job.reportId()).orElseThrow().results())
                .contains("latency");
        assertThat(reads).as("the output store is not read").hasValue(0);
    }

    /** Issue 13: the report's adapter and results file never change; the store that created the report knows them. */
    @Test
    void processingAJobWhoseReportThisStoreCreatedDoesNotReadTheReport() {
        Job job = completedJob();
        AtomicInteger reportReads = new AtomicInteger();
        Store counted = StoreCalls.intercept(store, (target, method, args) -> {
            if (method.getName().equals("findReport")) reportReads.incrementAndGet();
            try {
                return method.invoke(target, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
            }
        });
        new ResultProcessor(counted, counting, new Adapters(), new BatonMetrics(), Clock.systemUTC(), new Changes())
                .process(job);

        assertThat(store.runs().findJob(job.uuid()).orElseThrow().status()).isEqualTo(JobStatus.PROCESSED);
        assertThat(reportReads).as("report reads while processing").hasValue(0);
        assertThat(store.runs().findReport(job.reportId()).orElseThrow().results())
                .contains("latency");
    }

    @Test
    void recoveryReadsTheOutputFromTheOutputStore() {
        Job job = completedJob();
        new ResultProcessor(store, counting, new Adapters(), new BatonMetrics(), Clock.systemUTC(), new Changes())
                .process(job);

        assertThat(store.runs().findJob(job.uuid()).orElseThrow().status()).isEqualTo(JobStatus.PROCESSED);
        assertThat(store.runs().findReport(job.reportId()).orElseThrow().results())
                .contains("latency");
        assertThat(reads).hasValue(1);
    }

    private Job completedJob() {
        Instant now = Instant.now();
        var org = store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, now);
        Project project = store.organizations().createProject(org.id(), "P", Slug.of("p"), now);
        Spec spec = store.specs()
                .createSpec("Spec", Slug.of("spec"), Architecture.X86_64, 1, 1L << 30, 1L << 30, false, now);
        long runner = store.runners()
                .createRunner("R", Slug.of("r"), RunnerKey.generate().hash(), now)
                .id();
        store.specs().addRunnerSpec(runner, spec.id());
        JobConfig config = new JobConfig(
                "http://127.0.0.1:7700",
                project.uuid(),
                new ImageDigest("sha256:" + "ab".repeat(32)),
                List.of("/bin/sh"),
                List.of("-c", "true"),
                Map.of(),
                new JobTimeout(60),
                List.of(),
                1);
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", config, 60, 200, RetryPolicy.NONE),
                        org.id(),
                        now);
        Job claimed = store.claims()
                .claimEach(
                        List.of(new ClaimRequest(runner, 1, Set.of(spec.id()), ClaimFilter.NONE, false)),
                        now,
                        now.plusSeconds(30))
                .getFirst()
                .getFirst();
        store.transitions().start(claimed.uuid(), claimed.lease(), now);
        return store.transitions()
                .complete(claimed.uuid(), claimed.lease(), now)
                .job();
    }
}
