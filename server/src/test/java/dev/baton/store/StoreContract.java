package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Transition.Result;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract: every dialect runs exactly these tests against a real database (see
 * {@link SqliteStoreTest}, {@link PostgresStoreTest}). Time is passed in explicitly; {@link #now}
 * is a test clock advanced by hand.
 */
abstract class StoreContract {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    protected Store store;
    private Instant now = T0;

    /** A fresh, migrated, empty store. */
    protected abstract Store openStore() throws Exception;

    @BeforeEach
    void open() throws Exception {
        store = openStore();
    }

    @AfterEach
    void close() {
        if (store != null) store.close();
    }

    private Instant tick() {
        now = now.plusSeconds(1);
        return now;
    }

    // ---- fixtures ----------------------------------------------------------------------------

    private int seq;

    private Slug slug(String prefix) {
        return new Slug(prefix + "-" + (++seq));
    }

    private Organization org(PlanTier plan) {
        return store.organizations().createOrganization("Org", slug("org"), plan, tick());
    }

    private Project project(Organization org) {
        return store.organizations().createProject(org.id(), "Project", slug("project"), tick());
    }

    private Spec spec() {
        return store.specs()
                .createSpec("Spec", slug("spec"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, tick());
    }

    private Runner runner(Spec... specs) {
        Runner r = store.runners()
                .createRunner("Runner", slug("runner"), RunnerKey.generate().hash(), tick());
        for (Spec s : specs) store.specs().addRunnerSpec(r.id(), s.id());
        return r;
    }

    static JobConfig config(Project project) {
        return new JobConfig(
                "http://127.0.0.1:7700",
                project.uuid(),
                new ImageDigest("sha256:" + "ab".repeat(32)),
                List.of("/bin/sh"),
                List.of("-c", "true"),
                Map.of("K", "V"),
                new JobTimeout(60),
                List.of("/out.json"),
                2);
    }

    private Job submit(Project project, Spec spec, int priority, String ip, Instant at) {
        return submit(project, spec, priority, ip, at, RetryPolicy.NONE);
    }

    private Job submit(Project project, Spec spec, int priority, String ip, Instant at, RetryPolicy retry) {
        return store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "bench-box", "json", null, null, null),
                        new NewJob(spec.id(), ip, config(project), 60, priority, retry),
                        project.organizationId(),
                        at)
                .job();
    }

    private Job submit(Project project, Spec spec, int priority) {
        return submit(project, spec, priority, "10.0.0.1", tick());
    }

    /** Claims and asserts that something was claimed. */
    private Leased claimOne(Runner runner) {
        LeaseId lease = LeaseId.random();
        Optional<Job> job = TestClaims.claim(store, runner.id(), lease, tick());
        assertThat(job).as("a job is claimed").isPresent();
        return new Leased(job.get(), lease);
    }

    private record Leased(Job job, LeaseId lease) {
        JobUuid uuid() {
            return job.uuid();
        }
    }

    private Job reload(Job job) {
        return store.runs().findJob(job.uuid()).orElseThrow();
    }

    // ---- organizations and projects -----------------------------------------------------------

    @Test
    void organizationsAndProjectsAreCreatedFoundAndListed() {
        Organization org = store.organizations().createOrganization("Acme", new Slug("acme"), PlanTier.FREE, tick());
        assertThat(org.plan()).isEqualTo(PlanTier.FREE);
        assertThat(org.created()).isEqualTo(now);
        assertThat(store.organizations().findOrganization(org.id())).contains(org);
        assertThat(store.organizations().findOrganization(ResourceId.of("acme")))
                .contains(org);
        assertThat(store.organizations()
                        .findOrganization(ResourceId.of(org.uuid().toString())))
                .contains(org);
        assertThat(store.organizations().findOrganization(ResourceId.of("nope")))
                .isEmpty();

        Organization upgraded = store.organizations().setPlan(org.id(), PlanTier.ENTERPRISE, tick());
        assertThat(upgraded.plan()).isEqualTo(PlanTier.ENTERPRISE);
        assertThat(upgraded.modified()).isEqualTo(now);
        assertThat(store.organizations().listOrganizations()).containsExactly(upgraded);

        Project p = store.organizations().createProject(org.id(), "Web", new Slug("web"), tick());
        assertThat(p.organizationId()).isEqualTo(org.id());
        assertThat(store.organizations().findProject(p.id())).contains(p);
        assertThat(store.organizations().findProject(ResourceId.of("web"))).contains(p);
        assertThat(store.organizations().findProject(ResourceId.of(p.uuid().toString())))
                .contains(p);
        assertThat(store.organizations().listProjects()).containsExactly(p);
    }

    @Test
    void everyPlanTierRoundTrips() {
        for (PlanTier tier : PlanTier.values()) {
            Organization org = org(tier);
            assertThat(store.organizations()
                            .findOrganization(org.id())
                            .orElseThrow()
                            .plan())
                    .isEqualTo(tier);
        }
    }

    @Test
    void organizationAndProjectSlugsAreUnique() {
        Organization org = store.organizations().createOrganization("A", new Slug("same"), PlanTier.TEAM, tick());
        assertThatThrownBy(() -> store.organizations().createOrganization("B", new Slug("same"), PlanTier.TEAM, tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);
        store.organizations().createProject(org.id(), "P", new Slug("proj"), tick());
        assertThatThrownBy(() -> store.organizations().createProject(org.id(), "Q", new Slug("proj"), tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);
        assertThat(store.organizations().listProjects()).hasSize(1);
    }

    @Test
    void unknownOrganizationIsNotFound() {
        assertThatThrownBy(() -> store.organizations().setPlan(999, PlanTier.FREE, tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
        assertThatThrownBy(() -> store.organizations().createProject(999, "P", new Slug("p"), tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
    }

    // ---- runners -------------------------------------------------------------------------------

    @Test
    void runnersAreCreatedFoundListedAndUpdated() {
        Runner a = store.runners()
                .createRunner(
                        "Bench Box", new Slug("bench-box"), RunnerKey.generate().hash(), tick());
        assertThat(a.name()).isEqualTo("Bench Box");
        assertThat(a.isArchived()).isFalse();
        assertThat(a.lastHeartbeat()).isNull();
        assertThat(store.runners().findRunner(a.id())).contains(a);
        assertThat(store.runners().findRunner(ResourceId.of("bench-box"))).contains(a);
        assertThat(store.runners().findRunner(ResourceId.of(a.uuid().toString())))
                .contains(a);

        Runner b = store.runners()
                .createRunner("Other", new Slug("other"), RunnerKey.generate().hash(), tick());
        assertThat(store.runners().listRunners(new RunnerFilter(null, null, false)))
                .containsExactly(a, b);
        assertThat(store.runners().listRunners(new RunnerFilter("Other", null, false)))
                .containsExactly(b);
        assertThat(store.runners().listRunners(new RunnerFilter(null, "BENCH", false)))
                .containsExactly(a);
        assertThat(store.runners().listRunners(new RunnerFilter(null, "oth", false)))
                .containsExactly(b);
        assertThat(store.runners().listRunners(new RunnerFilter(null, "%", false)))
                .isEmpty();

        Runner renamed = store.runners().updateRunner(a.id(), "Renamed", new Slug("renamed"), null, tick());
        assertThat(renamed.name()).isEqualTo("Renamed");
        assertThat(renamed.slug()).isEqualTo(new Slug("renamed"));
        assertThat(renamed.modified()).isEqualTo(now);
        assertThat(store.runners().findRunner(ResourceId.of("bench-box"))).isEmpty();

        Runner archived = store.runners().updateRunner(a.id(), null, null, true, tick());
        assertThat(archived.archived()).isEqualTo(now);
        assertThat(archived.name()).isEqualTo("Renamed");
        Instant archivedAt = now;
        assertThat(store.runners()
                        .updateRunner(a.id(), null, null, true, tick())
                        .archived())
                .as("archiving again keeps the time")
                .isEqualTo(archivedAt);
        assertThat(store.runners().listRunners(new RunnerFilter(null, null, false)))
                .containsExactly(b);
        assertThat(store.runners().listRunners(new RunnerFilter(null, null, true)))
                .extracting(Runner::id)
                .containsExactly(a.id(), b.id());

        Runner restored = store.runners().updateRunner(a.id(), null, null, false, tick());
        assertThat(restored.isArchived()).isFalse();
    }

    @Test
    void runnerSlugsAreUnique() {
        store.runners()
                .createRunner("A", new Slug("taken"), RunnerKey.generate().hash(), tick());
        Runner b = store.runners()
                .createRunner("B", new Slug("free"), RunnerKey.generate().hash(), tick());
        assertThatThrownBy(() -> store.runners()
                        .createRunner(
                                "C", new Slug("taken"), RunnerKey.generate().hash(), tick()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("taken")
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);
        assertThatThrownBy(() -> store.runners().updateRunner(b.id(), null, new Slug("taken"), null, tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);
        assertThat(store.runners().findRunner(b.id()).orElseThrow().slug()).isEqualTo(new Slug("free"));
        assertThatThrownBy(() -> store.runners().updateRunner(12345, "x", null, null, tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
    }

    @Test
    void authenticateRunnerNeedsTheRightKeyForTheRightActiveRunner() {
        RunnerKey keyA = RunnerKey.generate();
        RunnerKey keyB = RunnerKey.generate();
        Runner a = store.runners().createRunner("A", new Slug("runner-a"), keyA.hash(), tick());
        Runner b = store.runners().createRunner("B", new Slug("runner-b"), keyB.hash(), tick());

        assertThat(store.runners().authenticateRunner(ResourceId.of("runner-a"), keyA.hash()))
                .map(Runner::id)
                .contains(a.id());
        assertThat(store.runners().authenticateRunner(ResourceId.of(a.uuid().toString()), keyA.hash()))
                .map(Runner::id)
                .contains(a.id());
        assertThat(store.runners()
                        .authenticateRunner(
                                ResourceId.of("runner-a"), RunnerKey.generate().hash()))
                .as("wrong key")
                .isEmpty();
        assertThat(store.runners().authenticateRunner(ResourceId.of("runner-a"), keyB.hash()))
                .as("another runner's key")
                .isEmpty();
        assertThat(store.runners().authenticateRunner(ResourceId.of(b.uuid().toString()), keyA.hash()))
                .as("another runner's key")
                .isEmpty();
        assertThat(store.runners().authenticateRunner(ResourceId.of("nobody"), keyA.hash()))
                .isEmpty();
        assertThat(store.runners().authenticateRunner(ResourceId.of("runner-a"), null))
                .isEmpty();

        store.runners().updateRunner(a.id(), null, null, true, tick());
        assertThat(store.runners().authenticateRunner(ResourceId.of("runner-a"), keyA.hash()))
                .as("archived runner")
                .isEmpty();
        store.runners().updateRunner(a.id(), null, null, false, tick());
        assertThat(store.runners().authenticateRunner(ResourceId.of("runner-a"), keyA.hash()))
                .isPresent();
    }

    @Test
    void rotationInvalidatesTheOldKeyAndArchivedRunnersCannotRotate() {
        RunnerKey oldKey = RunnerKey.generate();
        Runner r = store.runners().createRunner("R", new Slug("r"), oldKey.hash(), tick());
        RunnerKey newKey = RunnerKey.generate();
        Runner rotated = store.runners().rotateRunnerKey(r.id(), newKey.hash(), tick());
        assertThat(rotated.modified()).isEqualTo(now);
        assertThat(store.runners().authenticateRunner(ResourceId.of("r"), oldKey.hash()))
                .isEmpty();
        assertThat(store.runners().authenticateRunner(ResourceId.of("r"), newKey.hash()))
                .isPresent();

        store.runners().updateRunner(r.id(), null, null, true, tick());
        RunnerKey third = RunnerKey.generate();
        assertThatThrownBy(() -> store.runners().rotateRunnerKey(r.id(), third.hash(), tick()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("archived")
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);
        store.runners().updateRunner(r.id(), null, null, false, tick());
        assertThat(store.runners().authenticateRunner(ResourceId.of("r"), third.hash()))
                .as("refused rotation changed nothing")
                .isEmpty();
        assertThat(store.runners().authenticateRunner(ResourceId.of("r"), newKey.hash()))
                .isPresent();
        assertThatThrownBy(() -> store.runners().rotateRunnerKey(4242, third.hash(), tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
    }

    @Test
    void runnerHeartbeatsAreWrittenInABatchAndNeverGoBack() {
        Runner a = runner();
        Runner b = runner();
        Instant t1 = tick();
        Instant t2 = tick();
        store.runners().recordRunnerHeartbeats(Map.of(a.id(), t2, b.id(), t1));
        assertThat(store.runners().findRunner(a.id()).orElseThrow().lastHeartbeat())
                .isEqualTo(t2);
        assertThat(store.runners().findRunner(b.id()).orElseThrow().lastHeartbeat())
                .isEqualTo(t1);
        store.runners().recordRunnerHeartbeats(Map.of(a.id(), t1));
        assertThat(store.runners().findRunner(a.id()).orElseThrow().lastHeartbeat())
                .isEqualTo(t2);
        store.runners().recordRunnerHeartbeats(Map.of());
    }

    // ---- specs -------------------------------------------------------------------------------------

    @Test
    void specsAreCreatedFoundListedUpdatedAndDeleted() {
        Spec s = store.specs()
                .createSpec("Big", new Slug("big"), Architecture.AARCH64, 64, Long.MAX_VALUE, 1L << 40, true, tick());
        assertThat(s.architecture()).isEqualTo(Architecture.AARCH64);
        assertThat(s.cpu()).isEqualTo(64);
        assertThat(s.memory()).isEqualTo(Long.MAX_VALUE);
        assertThat(s.disk()).isEqualTo(1L << 40);
        assertThat(s.network()).isTrue();
        assertThat(store.specs().findSpec(s.id())).contains(s);
        assertThat(store.specs().findSpec(ResourceId.of("big"))).contains(s);
        assertThat(store.specs().findSpec(ResourceId.of(s.uuid().toString()))).contains(s);

        Spec small = store.specs().createSpec("Small", new Slug("small"), Architecture.X86_64, 1, 1, 1, false, tick());
        assertThat(small.network()).isFalse();
        assertThatThrownBy(() ->
                        store.specs().createSpec("Dup", new Slug("big"), Architecture.X86_64, 1, 1, 1, false, tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);
        assertThatThrownBy(() -> store.specs().updateSpec(small.id(), null, new Slug("big"), null, tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.CONFLICT);

        Spec archived = store.specs().updateSpec(s.id(), "Bigger", null, true, tick());
        assertThat(archived.name()).isEqualTo("Bigger");
        assertThat(archived.archived()).isEqualTo(now);
        assertThat(store.specs().listSpecs(false)).containsExactly(small);
        assertThat(store.specs().listSpecs(true)).extracting(Spec::id).containsExactly(s.id(), small.id());

        store.specs().deleteSpec(small.id());
        assertThat(store.specs().findSpec(small.id())).isEmpty();
        assertThatThrownBy(() -> store.specs().deleteSpec(small.id()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
    }

    @Test
    void runnerSpecAssociationsAreIdempotentAndGoWithADeletedSpec() {
        Spec s1 = spec();
        Spec s2 = spec();
        Runner r = runner();
        store.specs().addRunnerSpec(r.id(), s1.id());
        store.specs().addRunnerSpec(r.id(), s1.id());
        store.specs().addRunnerSpec(r.id(), s2.id());
        assertThat(store.specs().runnerSpecs(r.id())).extracting(Spec::id).containsExactly(s1.id(), s2.id());
        assertThat(store.specs().removeRunnerSpec(r.id(), s2.id())).isTrue();
        assertThat(store.specs().removeRunnerSpec(r.id(), s2.id())).isFalse();
        assertThat(store.specs().runnerSpecs(r.id())).extracting(Spec::id).containsExactly(s1.id());

        assertThatThrownBy(() -> store.specs().addRunnerSpec(r.id(), 9999))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
        assertThatThrownBy(() -> store.specs().addRunnerSpec(9999, s1.id()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);

        store.specs().deleteSpec(s1.id());
        assertThat(store.specs().runnerSpecs(r.id())).isEmpty();
    }

    @Test
    void aSpecReferencedByAJobCannotBeDeleted() {
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org(PlanTier.TEAM));
        submit(p, s, 200);
        assertThatThrownBy(() -> store.specs().deleteSpec(s.id()))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("1 job")
                .extracting("reason")
                .isEqualTo(StoreException.Reason.IN_USE);
        assertThat(store.specs().findSpec(s.id())).isPresent();
        assertThat(store.specs().runnerSpecs(r.id()))
                .as("a refused delete keeps the associations")
                .hasSize(1);
    }

    // ---- runs, reports, jobs ---------------------------------------------------------------------

    @Test
    void directModeCreatesAReportWithResults() {
        Project p = project(org(PlanTier.FREE));
        Instant start = Instant.parse("2026-02-01T00:00:00Z");
        Instant end = Instant.parse("2026-02-01T00:05:00Z");
        Report r = store.runs()
                .createReport(new NewReport(p.id(), "main", "tb", "json", start, end, "{\"bench\":1}"), tick());
        assertThat(r.projectId()).isEqualTo(p.id());
        assertThat(r.startTime()).isEqualTo(start);
        assertThat(r.endTime()).isEqualTo(end);
        assertThat(r.results()).isEqualTo("{\"bench\":1}");
        assertThat(store.runs().findReport(r.id())).contains(r);
        assertThatThrownBy(() ->
                        store.runs().createReport(new NewReport(9999, "b", "t", "json", start, end, "[]"), tick()))
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
    }

    @Test
    void createRunStoresAPendingJobAndAPlaceholderReport() {
        Organization org = org(PlanTier.FREE);
        Project p = project(org);
        Spec s = spec();
        RetryPolicy retry = new RetryPolicy(3, 10, true);
        Job job = submit(p, s, 100, "192.0.2.7", tick(), retry);

        assertThat(job.status()).isEqualTo(JobStatus.PENDING);
        assertThat(job.projectId()).isEqualTo(p.id());
        assertThat(job.organizationId()).isEqualTo(org.id());
        assertThat(job.specId()).isEqualTo(s.id());
        assertThat(job.sourceIp()).isEqualTo("192.0.2.7");
        assertThat(job.priority()).isEqualTo(100);
        assertThat(job.timeout()).isEqualTo(60);
        assertThat(job.config()).isEqualTo(config(p));
        assertThat(job.runnerId()).isNull();
        assertThat(job.lease()).isNull();
        assertThat(job.attempt()).isZero();
        assertThat(job.requeues()).isZero();
        assertThat(job.notBefore()).isNull();
        assertThat(job.created()).isEqualTo(now);
        assertThat(store.runs().findJob(job.uuid())).contains(job);
        assertThat(store.runs().findJob(job.id())).contains(job);
        assertThat(store.runs().findJob(job.id() + 1_000_000)).isEmpty();

        Report report = store.runs().findReport(job.reportId()).orElseThrow();
        assertThat(report.startTime()).isEqualTo(now);
        assertThat(report.endTime()).isEqualTo(now);
        assertThat(report.results()).isNull();
        assertThat(store.runs().findJob(JobUuid.random())).isEmpty();
    }

    /** A submission answers from what createRun returns, so it must be what the store holds. */
    @Test
    void createRunReturnsTheReportAndJobItStored() {
        Project p = project(org(PlanTier.TEAM));
        Instant now = tick();
        CreatedRun created = store.runs()
                .createRun(
                        new NewReport(p.id(), "feature", "box-9", "json", "/out.json", null, null, null),
                        new NewJob(spec().id(), "10.0.0.1", config(p), 60, 200, RetryPolicy.NONE),
                        p.organizationId(),
                        now);

        assertThat(created.job().reportId()).isEqualTo(created.report().id());
        assertThat(store.runs().findJob(created.job().uuid())).contains(created.job());
        assertThat(store.runs().findReport(created.report().id())).contains(created.report());
        assertThat(created.report().branch()).isEqualTo("feature");
        assertThat(created.report().resultsFile()).isEqualTo("/out.json");
        assertThat(created.report().startTime()).isEqualTo(now);
        Report direct = store.runs().createReport(new NewReport(p.id(), "main", "box", "json", now, now, "{}"), now);
        assertThat(store.runs().findReport(direct.id())).contains(direct);
    }

    @Test
    void createRunWritesNothingWhenTheSpecDoesNotExist() {
        Project p = project(org(PlanTier.TEAM));
        assertThatThrownBy(() -> store.runs()
                        .createRun(
                                new NewReport(p.id(), "b", "t", "json", null, null, null),
                                new NewJob(9999, "10.0.0.1", config(p), 60, 200, RetryPolicy.NONE),
                                p.organizationId(),
                                tick())
                        .job())
                .isInstanceOf(StoreException.class)
                .extracting("reason")
                .isEqualTo(StoreException.Reason.NOT_FOUND);
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, null, null, 100, 0)))
                .isEmpty();
    }

    @Test
    void listJobsFiltersAndPaginatesNewestFirst() {
        Project p = project(org(PlanTier.TEAM));
        Project other = project(org(PlanTier.TEAM));
        Spec s1 = spec();
        Spec s2 = spec();
        Runner r = runner(s1);
        Job a = submit(p, s1, 200);
        Job b = submit(p, s2, 200);
        Job c = submit(p, s1, 200);
        submit(other, s1, 200);
        Leased claimed = claimOne(r); // a: oldest of s1

        assertThat(claimed.job().id()).isEqualTo(a.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, null, null, 10, 0)))
                .extracting(Job::id)
                .containsExactly(c.id(), b.id(), a.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, null, null, 2, 0)))
                .extracting(Job::id)
                .containsExactly(c.id(), b.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, null, null, 2, 2)))
                .extracting(Job::id)
                .containsExactly(a.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(JobStatus.PENDING, null, null, 10, 0)))
                .extracting(Job::id)
                .containsExactly(c.id(), b.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(JobStatus.CLAIMED, null, null, 10, 0)))
                .extracting(Job::id)
                .containsExactly(a.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, s2.id(), null, 10, 0)))
                .extracting(Job::id)
                .containsExactly(b.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, null, r.id(), 10, 0)))
                .extracting(Job::id)
                .containsExactly(a.id());
        assertThat(store.runs().listJobs(p.id(), new JobFilter(JobStatus.PENDING, s1.id(), null, 10, 0)))
                .extracting(Job::id)
                .containsExactly(c.id());
    }

    // ---- claim --------------------------------------------------------------------------------------

    @Test
    void claimSetsTheLeaseAndOpensAnAttempt() {
        Spec s = spec();
        Runner r = runner(s);
        Job job = submit(project(org(PlanTier.TEAM)), s, 200);
        LeaseId lease = LeaseId.random();
        Job claimed = TestClaims.claim(store, r.id(), lease, tick()).orElseThrow();

        assertThat(claimed.id()).isEqualTo(job.id());
        assertThat(claimed.status()).isEqualTo(JobStatus.CLAIMED);
        assertThat(claimed.runnerId()).isEqualTo(r.id());
        assertThat(claimed.holds(lease)).isTrue();
        assertThat(claimed.attempt()).isEqualTo(1);
        assertThat(claimed.claimed()).isEqualTo(now);
        assertThat(claimed.lastHeartbeat()).isEqualTo(now);

        Attempt attempt = store.runs().findAttempt(job.id(), 1).orElseThrow();
        assertThat(attempt.lease().matches(lease)).isTrue();
        assertThat(attempt.runnerId()).isEqualTo(r.id());
        assertThat(attempt.claimed()).isEqualTo(now);
        assertThat(attempt.outcome()).isNull();
        assertThat(store.runs().attempts(job.id())).containsExactly(attempt);
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), tick()))
                .as("nothing left")
                .isEmpty();
    }

    @Test
    void claimOrderIsPriorityThenFifoThenId() {
        Spec s = spec();
        Runner r = runner(s);
        Project ent = project(org(PlanTier.ENTERPRISE));
        Instant same = tick();
        Job teamOld = submit(ent, s, 200, "10.0.0.1", tick());
        Job entLate = submit(ent, s, 300, "10.0.0.1", tick());
        Job sameA = submit(ent, s, 250, "10.0.0.1", same);
        Job sameB = submit(ent, s, 250, "10.0.0.1", same);
        Job teamNew = submit(ent, s, 200, "10.0.0.1", tick());

        List<Long> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) order.add(claimOne(r).job().id());
        assertThat(order).containsExactly(entLate.id(), sameA.id(), sameB.id(), teamOld.id(), teamNew.id());
    }

    /**
     * A runner of several specs takes the jobs of all of them in one order (the plain claim finds
     * each spec's first job, then the first of those), and a job that is not claimable now (a
     * retry's backoff) lets the next of its spec go first.
     */
    @Test
    void claimOrderRunsAcrossTheRunnersSpecs() {
        Spec a = spec();
        Spec b = spec();
        Runner r = runner(a, b);
        Project ent = project(org(PlanTier.ENTERPRISE));
        Job bOld = submit(ent, b, 200, "10.0.0.1", tick());
        Job aOld = submit(ent, a, 200, "10.0.0.1", tick());
        Job aHigh = submit(ent, a, 250, "10.0.0.1", tick());
        Job bNew = submit(ent, b, 200, "10.0.0.1", tick());

        List<Long> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) order.add(claimOne(r).job().id());
        assertThat(order).containsExactly(aHigh.id(), bOld.id(), aOld.id(), bNew.id());
    }

    @Test
    void aRunnerNeverClaimsAJobOfAnotherSpec() {
        Spec mine = spec();
        Spec theirs = spec();
        Runner r = runner(mine);
        Runner specless = runner();
        submit(project(org(PlanTier.ENTERPRISE)), theirs, 300);
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), tick())).isEmpty();
        assertThat(TestClaims.claim(store, specless.id(), LeaseId.random(), tick()))
                .isEmpty();
        assertThat(store.runs().hasPendingFor(List.of(mine.id()))).isFalse();
        assertThat(store.runs().hasPendingFor(List.of(mine.id(), theirs.id()))).isTrue();
        assertThat(store.runs().hasPendingFor(List.of())).isFalse();
        // Up to 8 specs the ids are bound to a kept statement; more are written into a statement of their own.
        List<Long> others = java.util.stream.LongStream.rangeClosed(1, 9)
                .map(i -> mine.id() + 1000 * i)
                .boxed()
                .toList();
        List<Long> withTheirs = new java.util.ArrayList<>(others);
        withTheirs.add(7, theirs.id());
        assertThat(store.runs().hasPendingFor(withTheirs.subList(0, 8)))
                .as("the eighth of 8 kept ids")
                .isTrue();
        assertThat(store.runs().hasPendingFor(others.subList(0, 8))).isFalse();
        assertThat(store.runs().hasPendingFor(withTheirs)).as("10 ids").isTrue();
        assertThat(store.runs().hasPendingFor(others)).isFalse();
    }

    @Test
    void anArchivedRunnerClaimsNothing() {
        Spec s = spec();
        Runner r = runner(s);
        submit(project(org(PlanTier.TEAM)), s, 200);
        store.runners().updateRunner(r.id(), null, null, true, tick());
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), tick())).isEmpty();
    }

    @Test
    void freeTierRunsOneJobPerOrganization() {
        Spec s = spec();
        Runner r1 = runner(s);
        Runner r2 = runner(s);
        Organization free = org(PlanTier.FREE);
        Project p1 = project(free);
        Project p2 = project(free);
        Job first = submit(p1, s, 100, "10.0.0.1", tick());
        Job second = submit(p2, s, 100, "10.0.0.2", tick());

        Leased a = claimOne(r1);
        assertThat(a.job().id()).isEqualTo(first.id());
        assertThat(TestClaims.claim(store, r2.id(), LeaseId.random(), tick()))
                .as("same organization, other project and IP")
                .isEmpty();

        store.transitions().start(a.uuid(), a.lease(), tick());
        assertThat(TestClaims.claim(store, r2.id(), LeaseId.random(), tick()))
                .as("running counts too")
                .isEmpty();
        assertThat(store.transitions().complete(a.uuid(), a.lease(), tick()).result())
                .isEqualTo(Result.APPLIED);
        assertThat(claimOne(r2).job().id()).as("completion unblocks the next").isEqualTo(second.id());
    }

    @Test
    void unclaimedTierRunsOneJobPerSourceIp() {
        Spec s = spec();
        Runner r = runner(s);
        Project anon1 = project(org(PlanTier.UNCLAIMED));
        Project anon2 = project(org(PlanTier.UNCLAIMED));
        Job a = submit(anon1, s, 0, "198.51.100.1", tick());
        Job sameIp = submit(anon2, s, 0, "198.51.100.1", tick());
        Job otherIp = submit(anon1, s, 0, "198.51.100.2", tick());

        assertThat(claimOne(r).job().id()).isEqualTo(a.id());
        Leased b = claimOne(r);
        assertThat(b.job().id())
                .as("the same IP is blocked even for another organization")
                .isEqualTo(otherIp.id());
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), tick())).isEmpty();
        store.transitions().cancel(a.uuid(), null, "user", tick());
        assertThat(claimOne(r).job().id()).isEqualTo(sameIp.id());
    }

    @Test
    void higherPriorityAndOtherOrganizationsSkipABlockedJob() {
        Spec s = spec();
        Runner r = runner(s);
        Organization freeA = org(PlanTier.FREE);
        Project pa = project(freeA);
        Job aFirst = submit(pa, s, 100, "10.0.0.1", tick());
        Job aBlocked = submit(pa, s, 100, "10.0.0.1", tick());
        Job bFree = submit(project(org(PlanTier.FREE)), s, 100, "10.0.0.9", tick());
        Job team = submit(project(org(PlanTier.TEAM)), s, 200, "10.0.0.1", tick());

        assertThat(claimOne(r).job().id()).isEqualTo(team.id());
        assertThat(claimOne(r).job().id()).isEqualTo(aFirst.id());
        assertThat(claimOne(r).job().id())
                .as("the blocked older job is skipped, not waited for")
                .isEqualTo(bFree.id());
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), tick())).isEmpty();
        assertThat(reload(aBlocked).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void aRunnerDoesNotGetBackAJobItDeclined() {
        Spec s = spec();
        Runner r1 = runner(s);
        Runner r2 = runner(s);
        Job job = submit(project(org(PlanTier.TEAM)), s, 200);
        Leased first = claimOne(r1);
        assertThat(store.transitions()
                        .requeue(first.uuid(), first.lease(), AttemptOutcome.DECLINED, 5, tick())
                        .result())
                .isEqualTo(Result.APPLIED);
        assertThat(TestClaims.claim(store, r1.id(), LeaseId.random(), tick())).isEmpty();
        Leased second = claimOne(r2);
        assertThat(second.job().id()).isEqualTo(job.id());
        assertThat(second.job().attempt()).isEqualTo(2);
        assertThat(store.runs().attempts(job.id()))
                .extracting(Attempt::number, Attempt::runnerId, Attempt::outcome)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, r1.id(), AttemptOutcome.DECLINED),
                        org.assertj.core.groups.Tuple.tuple(2, r2.id(), null));
    }

    @Test
    void aRunnerLostBeforeStartMayClaimTheJobAgain() {
        Spec s = spec();
        Runner r = runner(s);
        Job job = submit(project(org(PlanTier.TEAM)), s, 200);
        Leased first = claimOne(r);
        store.transitions().requeue(first.uuid(), first.lease(), AttemptOutcome.LOST_BEFORE_START, 5, tick());
        assertThat(claimOne(r).job().id()).isEqualTo(job.id());
    }

    @Test
    void concurrentClaimersNeverShareAJob() throws Exception {
        Spec s = spec();
        Project p = project(org(PlanTier.TEAM));
        int jobs = 60;
        for (int i = 0; i < jobs; i++) submit(p, s, 200);
        int threads = 8;
        List<Runner> runners = new ArrayList<>();
        for (int i = 0; i < threads; i++) runners.add(runner(s));
        Instant at = tick();

        Map<Long, Integer> claimsPerJob = new ConcurrentHashMap<>();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (Runner r : runners) {
                results.add(pool.submit(() -> {
                    go.await();
                    int mine = 0;
                    while (true) {
                        Optional<Job> job = TestClaims.claim(store, r.id(), LeaseId.random(), at);
                        if (job.isEmpty()) return mine;
                        claimsPerJob.merge(job.get().id(), 1, Integer::sum);
                        mine++;
                    }
                }));
            }
            go.countDown();
            int total = 0;
            for (Future<Integer> f : results) total += f.get();
            assertThat(total).isEqualTo(jobs);
        } finally {
            pool.shutdownNow();
        }
        assertThat(claimsPerJob).hasSize(jobs);
        assertThat(claimsPerJob.values()).allMatch(n -> n == 1);
        assertThat(store.liveness().inFlightJobs()).hasSize(jobs);
    }

    @Test
    void concurrentClaimersKeepTheTierLimits() throws Exception {
        Spec s = spec();
        Organization free = org(PlanTier.FREE);
        Project fp = project(free);
        Project anon = project(org(PlanTier.UNCLAIMED));
        for (int i = 0; i < 10; i++) submit(fp, s, 100, "10.1.0." + i, tick());
        for (int i = 0; i < 10; i++) submit(anon, s, 0, "203.0.113.5", tick());
        int threads = 8;
        List<Runner> runners = new ArrayList<>();
        for (int i = 0; i < threads; i++) runners.add(runner(s));
        Instant at = tick();

        List<Job> claimed = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> results = new ArrayList<>();
            for (Runner r : runners) {
                results.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 3; i++)
                        TestClaims.claim(store, r.id(), LeaseId.random(), at).ifPresent(claimed::add);
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : results) f.get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(claimed)
                .as("at most one free job of the organization and one job of the IP")
                .hasSizeLessThanOrEqualTo(2);
        assertThat(claimed.stream().filter(j -> j.priority() == 100)).hasSizeLessThanOrEqualTo(1);
        assertThat(claimed.stream().filter(j -> j.priority() == 0)).hasSizeLessThanOrEqualTo(1);
        assertThat(store.liveness().inFlightJobs()).hasSameSizeAs(claimed);
        // Nothing in flight was blocked by a racing claim for good: one of each is claimable now.
        Runner late = runner(s);
        while (TestClaims.claim(store, late.id(), LeaseId.random(), tick()).isPresent()) {
            assertThat(store.liveness().inFlightJobs()).hasSizeLessThanOrEqualTo(2);
        }
        assertThat(store.liveness().inFlightJobs()).extracting(Job::priority).containsExactlyInAnyOrder(100, 0);
    }

    /**
     * Priority is fixed at submission, so after a plan change one organization (or one IP) can
     * have jobs of an unlimited and of a limited tier. A racing unlimited claim must count for the
     * limited one: in each round a team, a free and an unclaimed job of one organization and one
     * IP are claimed by several runners at once; the free and the unclaimed job exclude each
     * other (same organization, same IP), and neither may join a team job claimed before it.
     */
    @Test
    void racingClaimsAcrossTiersOfOneOrganizationKeepTheLimit() throws Exception {
        Spec s = spec();
        List<Runner> runners = new ArrayList<>();
        for (int i = 0; i < 4; i++) runners.add(runner(s));
        ExecutorService pool = Executors.newFixedThreadPool(runners.size());
        try {
            for (int round = 0; round < 25; round++) {
                Organization org = org(PlanTier.FREE);
                Project p = project(org);
                String ip = "172.16.0." + round;
                submit(p, s, 200, ip, tick());
                submit(p, s, 100, ip, tick());
                submit(p, s, 0, ip, tick());
                Instant at = tick();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Optional<Job>>> claims = new ArrayList<>();
                for (Runner r : runners) {
                    claims.add(pool.submit(() -> {
                        go.await();
                        return TestClaims.claim(store, r.id(), LeaseId.random(), at);
                    }));
                }
                go.countDown();
                List<Job> won = new ArrayList<>();
                for (Future<Optional<Job>> f : claims) f.get().ifPresent(won::add);
                // Valid outcomes: {team}; or {free, team} / {unclaimed, team} when the limited job
                // was claimed first (a team job is never limited). Never two limited jobs.
                assertThat(won).as("round %d", round).isNotEmpty();
                assertThat(won.stream().filter(j -> j.priority() < 200))
                        .as("round %d: limited jobs in flight", round)
                        .hasSizeLessThanOrEqualTo(1);
                for (Job j : won) store.transitions().cancel(j.uuid(), null, "next round", tick());
                for (Job j : store.runs().listJobs(p.id(), new JobFilter(JobStatus.PENDING, null, null, 10, 0))) {
                    store.transitions().cancel(j.uuid(), null, "next round", tick());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- transitions ---------------------------------------------------------------------------

    private Leased claimedJob() {
        Spec s = spec();
        Runner r = runner(s);
        submit(project(org(PlanTier.TEAM)), s, 200);
        return claimOne(r);
    }

    @Test
    void startIsAppliedOnceThenDuplicateAndFenced() {
        Leased j = claimedJob();
        Transition t = store.transitions().start(j.uuid(), j.lease(), tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.RUNNING);
        assertThat(t.job().started()).isEqualTo(now);
        assertThat(store.runs().findAttempt(j.job().id(), 1).orElseThrow().started())
                .isEqualTo(now);
        Instant startedAt = now;

        Transition again = store.transitions().start(j.uuid(), j.lease(), tick());
        assertThat(again.result()).isEqualTo(Result.DUPLICATE);
        assertThat(again.job().started()).as("a resent running keeps the start").isEqualTo(startedAt);
        assertThat(again.job().lastHeartbeat()).as("but refreshes liveness").isEqualTo(now);

        assertThat(store.transitions().start(j.uuid(), LeaseId.random(), tick()).result())
                .isEqualTo(Result.STALE);
        assertThat(store.transitions()
                        .start(JobUuid.random(), j.lease(), tick())
                        .result())
                .isEqualTo(Result.NOT_FOUND);
        store.transitions().complete(j.uuid(), j.lease(), tick());
        Transition late = store.transitions().start(j.uuid(), j.lease(), tick());
        assertThat(late.result()).isEqualTo(Result.CONFLICT);
        assertThat(late.job().status()).isEqualTo(JobStatus.COMPLETED);
    }

    @Test
    void startOfAPendingJobIsStale() {
        Spec s = spec();
        Job job = submit(project(org(PlanTier.TEAM)), s, 200);
        assertThat(store.transitions()
                        .start(job.uuid(), LeaseId.random(), tick())
                        .result())
                .isEqualTo(Result.STALE);
        assertThat(reload(job).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void completeIsAppliedFromClaimedOrRunningThenDuplicate() {
        Leased j = claimedJob();
        store.transitions().start(j.uuid(), j.lease(), tick());
        Transition t = store.transitions().complete(j.uuid(), j.lease(), tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(t.job().completed()).isEqualTo(now);
        Attempt attempt = store.runs().findAttempt(j.job().id(), 1).orElseThrow();
        assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.COMPLETED);
        assertThat(attempt.ended()).isEqualTo(now);

        assertThat(store.transitions().complete(j.uuid(), j.lease(), tick()).result())
                .isEqualTo(Result.DUPLICATE);
        assertThat(store.transitions()
                        .complete(j.uuid(), LeaseId.random(), tick())
                        .result())
                .isEqualTo(Result.STALE);
        store.transitions().process(j.uuid(), "{}", tick());
        assertThat(store.transitions().complete(j.uuid(), j.lease(), tick()).result())
                .as("a resend after processing")
                .isEqualTo(Result.DUPLICATE);

        Leased fromClaimed = claimedJob();
        assertThat(store.transitions()
                        .complete(fromClaimed.uuid(), fromClaimed.lease(), tick())
                        .result())
                .isEqualTo(Result.APPLIED);
    }

    @Test
    void completeOverridesAHeartbeatTimeoutFailureOnlyUnderTheSameLease() {
        Leased j = claimedJob();
        store.transitions().start(j.uuid(), j.lease(), tick());
        Transition failed =
                store.transitions().fail(j.uuid(), j.lease(), "heartbeat timeout", AttemptOutcome.LOST, tick());
        assertThat(failed.result()).isEqualTo(Result.APPLIED);
        assertThat(failed.job().status()).isEqualTo(JobStatus.FAILED);
        assertThat(failed.job().error()).isEqualTo("heartbeat timeout");
        assertThat(store.runs().findAttempt(j.job().id(), 1).orElseThrow().outcome())
                .isEqualTo(AttemptOutcome.LOST);

        assertThat(store.transitions()
                        .complete(j.uuid(), LeaseId.random(), tick())
                        .result())
                .isEqualTo(Result.STALE);
        assertThat(reload(j.job()).status()).isEqualTo(JobStatus.FAILED);

        Transition overridden = store.transitions().complete(j.uuid(), j.lease(), tick());
        assertThat(overridden.result()).isEqualTo(Result.APPLIED);
        assertThat(overridden.job().status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(overridden.job().error()).isNull();
        assertThat(store.runs().findAttempt(j.job().id(), 1).orElseThrow().outcome())
                .isEqualTo(AttemptOutcome.COMPLETED);
    }

    /** Small output is written by the transition that ends the attempt, and only by an applied one (decision 0034). */
    @Test
    void theAttemptKeepsTheOutputOfTheWordThatEndedItAndOfNoOther() {
        Leased j = claimedJob();
        store.transitions().start(j.uuid(), j.lease(), tick());
        assertThat(store.transitions()
                        .complete(j.uuid(), LeaseId.random(), tick(), bytes("stale"))
                        .result())
                .isEqualTo(Result.STALE);
        assertThat(store.runs().attemptOutput(j.uuid(), 1))
                .as("a refused word stores nothing")
                .isEmpty();

        assertThat(store.transitions()
                        .complete(j.uuid(), j.lease(), tick(), bytes("accepted"))
                        .result())
                .isEqualTo(Result.APPLIED);
        assertThat(store.runs().attemptOutput(j.uuid(), 1)).map(String::new).contains("accepted");
        assertThat(store.transitions()
                        .complete(j.uuid(), j.lease(), tick(), bytes("resent"))
                        .result())
                .isEqualTo(Result.DUPLICATE);
        assertThat(store.runs().attemptOutput(j.uuid(), 1))
                .as("a duplicate changes nothing")
                .map(String::new)
                .contains("accepted");
        assertThat(store.runs().attemptOutput(j.uuid(), 2)).isEmpty();
        assertThat(store.runs().attemptOutput(JobUuid.random(), 1)).isEmpty();

        // Failed, then completed under the same lease: the completion's word replaces the failure's,
        // and one stored elsewhere (null) leaves the row without the failure's output.
        Leased timedOut = claimedJob();
        assertThat(store.transitions()
                        .fail(
                                timedOut.uuid(),
                                timedOut.lease(),
                                "exit 1",
                                AttemptOutcome.FAILED,
                                tick(),
                                bytes("failure"))
                        .applied())
                .isTrue();
        assertThat(store.runs().attemptOutput(timedOut.uuid(), 1))
                .map(String::new)
                .contains("failure");
        assertThat(store.transitions()
                        .complete(timedOut.uuid(), timedOut.lease(), tick(), null)
                        .applied())
                .isTrue();
        assertThat(store.runs().attemptOutput(timedOut.uuid(), 1)).isEmpty();

        // A retried failure keeps its output on attempt 1; the next attempt starts without any.
        Spec s = spec();
        Runner r = runner(s);
        Job retried = submit(project(org(PlanTier.TEAM)), s, 200, "10.0.0.1", tick(), new RetryPolicy(2, 0, false));
        Leased first = claimOne(r);
        Transition t = store.transitions()
                .fail(first.uuid(), first.lease(), "exit 2", AttemptOutcome.FAILED, tick(), bytes("first try"));
        assertThat(t.job().status()).isEqualTo(JobStatus.PENDING);
        assertThat(store.runs().attemptOutput(retried.uuid(), 1))
                .map(String::new)
                .contains("first try");
        assertThat(claimOne(r).job().attempt()).isEqualTo(2);
        assertThat(store.runs().attemptOutput(retried.uuid(), 2)).isEmpty();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void failIsAppliedThenDuplicateAndConflictsWithACompletedJob() {
        Leased j = claimedJob();
        Transition t = store.transitions().fail(j.uuid(), j.lease(), "pull failed", AttemptOutcome.FAILED, tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.FAILED);
        assertThat(t.job().completed()).isEqualTo(now);
        assertThat(store.transitions()
                        .fail(j.uuid(), j.lease(), "pull failed", AttemptOutcome.FAILED, tick())
                        .result())
                .isEqualTo(Result.DUPLICATE);
        assertThat(store.transitions()
                        .fail(j.uuid(), LeaseId.random(), "x", AttemptOutcome.FAILED, tick())
                        .result())
                .isEqualTo(Result.STALE);
        assertThat(store.transitions()
                        .fail(JobUuid.random(), j.lease(), "x", AttemptOutcome.FAILED, tick())
                        .result())
                .isEqualTo(Result.NOT_FOUND);

        Leased done = claimedJob();
        store.transitions().complete(done.uuid(), done.lease(), tick());
        Transition conflict =
                store.transitions().fail(done.uuid(), done.lease(), "late", AttemptOutcome.FAILED, tick());
        assertThat(conflict.result()).isEqualTo(Result.CONFLICT);
        assertThat(conflict.job().status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(conflict.job().error()).isNull();
    }

    @Test
    void userCancelWorksFromPendingClaimedAndRunning() {
        Spec s = spec();
        Job pending = submit(project(org(PlanTier.TEAM)), s, 200);
        Transition t = store.transitions().cancel(pending.uuid(), null, "canceled by user", tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.CANCELED);
        assertThat(t.job().error()).isEqualTo("canceled by user");
        assertThat(store.transitions()
                        .cancel(pending.uuid(), null, "again", tick())
                        .result())
                .isEqualTo(Result.DUPLICATE);
        assertThat(store.transitions()
                        .cancel(JobUuid.random(), null, "x", tick())
                        .result())
                .isEqualTo(Result.NOT_FOUND);

        Leased claimed = claimedJob();
        assertThat(store.transitions()
                        .cancel(claimed.uuid(), null, "user", tick())
                        .result())
                .isEqualTo(Result.APPLIED);
        assertThat(store.runs().findAttempt(claimed.job().id(), 1).orElseThrow().outcome())
                .isEqualTo(AttemptOutcome.CANCELED);
        assertThat(store.transitions()
                        .cancel(claimed.uuid(), claimed.lease(), "runner ack", tick())
                        .result())
                .as("the runner's canceled after a user cancel")
                .isEqualTo(Result.DUPLICATE);

        Leased running = claimedJob();
        store.transitions().start(running.uuid(), running.lease(), tick());
        assertThat(store.transitions()
                        .cancel(running.uuid(), null, "user", tick())
                        .job()
                        .status())
                .isEqualTo(JobStatus.CANCELED);

        Leased completed = claimedJob();
        store.transitions().complete(completed.uuid(), completed.lease(), tick());
        assertThat(store.transitions()
                        .cancel(completed.uuid(), null, "too late", tick())
                        .result())
                .isEqualTo(Result.CONFLICT);
    }

    @Test
    void leasedCancelIsFenced() {
        Leased j = claimedJob();
        store.transitions().start(j.uuid(), j.lease(), tick());
        assertThat(store.transitions()
                        .cancel(j.uuid(), LeaseId.random(), "hard timeout", tick())
                        .result())
                .isEqualTo(Result.STALE);
        assertThat(reload(j.job()).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(store.transitions()
                        .cancel(j.uuid(), j.lease(), "hard timeout", tick())
                        .result())
                .isEqualTo(Result.APPLIED);
        assertThat(store.transitions()
                        .cancel(j.uuid(), j.lease(), "hard timeout", tick())
                        .result())
                .isEqualTo(Result.DUPLICATE);
    }

    @Test
    void processWritesTheReportAndIsAppliedOnce() {
        Leased j = claimedJob();
        Instant started = tick();
        store.transitions().start(j.uuid(), j.lease(), started);
        assertThat(store.transitions().process(j.uuid(), "{}", tick()).result())
                .as("not completed yet")
                .isEqualTo(Result.CONFLICT);
        Instant completed = tick();
        store.transitions().complete(j.uuid(), j.lease(), completed);
        Transition t = store.transitions().process(j.uuid(), "{\"latency\":1}", tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.PROCESSED);
        Report report = store.runs().findReport(j.job().reportId()).orElseThrow();
        assertThat(report.results()).isEqualTo("{\"latency\":1}");
        assertThat(report.startTime()).isEqualTo(started);
        assertThat(report.endTime()).isEqualTo(completed);
        assertThat(store.transitions().process(j.uuid(), "{}", tick()).result()).isEqualTo(Result.DUPLICATE);
        assertThat(store.transitions().process(JobUuid.random(), "{}", tick()).result())
                .isEqualTo(Result.NOT_FOUND);
    }

    @Test
    void anAdapterErrorIsRecordedOnTheReportAndTheJobStaysCompleted() {
        Leased j = claimedJob();
        Instant started = tick();
        store.transitions().start(j.uuid(), j.lease(), started);
        assertThat(store.transitions()
                        .recordAdapterError(j.uuid(), null, "iteration 0: not JSON", tick())
                        .result())
                .as("not completed yet")
                .isEqualTo(Result.CONFLICT);
        Instant completed = tick();
        store.transitions().complete(j.uuid(), j.lease(), completed);
        Transition t =
                store.transitions().recordAdapterError(j.uuid(), "{\"partial\":true}", "iteration 1: not JSON", tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.COMPLETED);
        assertThat(reload(j.job()).status()).isEqualTo(JobStatus.COMPLETED);
        Report report = store.runs().findReport(j.job().reportId()).orElseThrow();
        assertThat(report.error()).isEqualTo("iteration 1: not JSON");
        assertThat(report.results()).isEqualTo("{\"partial\":true}");
        assertThat(report.startTime()).isEqualTo(started);
        assertThat(report.endTime()).isEqualTo(completed);
        assertThat(store.liveness().completedUnprocessedJobs())
                .as("startup recovery does not parse it again")
                .isEmpty();
        assertThat(store.transitions()
                        .recordAdapterError(JobUuid.random(), null, "x", tick())
                        .result())
                .isEqualTo(Result.NOT_FOUND);
    }

    @Test
    void processingClearsAnEarlierAdapterError() {
        Leased j = claimedJob();
        store.transitions().complete(j.uuid(), j.lease(), tick());
        store.transitions().recordAdapterError(j.uuid(), null, "iteration 0: not JSON", tick());
        assertThat(store.transitions().process(j.uuid(), "{}", tick()).result()).isEqualTo(Result.APPLIED);
        assertThat(store.runs().findReport(j.job().reportId()).orElseThrow().error())
                .isNull();
        assertThat(store.transitions()
                        .recordAdapterError(j.uuid(), null, "late", tick())
                        .result())
                .as("processed already")
                .isEqualTo(Result.DUPLICATE);
        assertThat(store.runs().findReport(j.job().reportId()).orElseThrow().error())
                .isNull();
    }

    @Test
    void aReportKnowsItsJobAndKeepsItsResultsFile() {
        Leased j = claimedJob();
        assertThat(store.runs().findJobOfReport(j.job().reportId()))
                .map(Job::id)
                .contains(j.job().id());
        Project p = project(org(PlanTier.TEAM));
        Report direct = store.runs()
                .createReport(new NewReport(p.id(), "main", "localhost", "json", tick(), tick(), "{}"), tick());
        assertThat(store.runs().findJobOfReport(direct.id())).isEmpty();
        Report withFile = store.runs()
                .createReport(
                        new NewReport(p.id(), "main", "localhost", "java_jmh", "out/jmh.json", tick(), tick(), "{}"),
                        tick());
        assertThat(store.runs().findReport(withFile.id()).orElseThrow().resultsFile())
                .isEqualTo("out/jmh.json");
        assertThat(direct.resultsFile()).isNull();
    }

    @Test
    void requeueReturnsTheJobToTheQueueUnderItsLeaseOnly() {
        Leased j = claimedJob();
        assertThat(store.transitions()
                        .requeue(j.uuid(), LeaseId.random(), AttemptOutcome.DECLINED, 5, tick())
                        .result())
                .isEqualTo(Result.STALE);
        Transition t = store.transitions().requeue(j.uuid(), j.lease(), AttemptOutcome.ACCEPT_TIMEOUT, 5, tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.PENDING);
        assertThat(t.job().lease()).isNull();
        assertThat(t.job().runnerId()).isNull();
        assertThat(t.job().claimed()).isNull();
        assertThat(t.job().requeues()).isEqualTo(1);
        assertThat(t.job().attempt()).isEqualTo(1);
        Attempt attempt = store.runs().findAttempt(j.job().id(), 1).orElseThrow();
        assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.ACCEPT_TIMEOUT);
        assertThat(attempt.ended()).isEqualTo(now);

        assertThat(store.transitions()
                        .requeue(j.uuid(), j.lease(), AttemptOutcome.ACCEPT_TIMEOUT, 5, tick())
                        .result())
                .as("the same requeue again")
                .isEqualTo(Result.DUPLICATE);
        assertThat(store.transitions().start(j.uuid(), j.lease(), tick()).result())
                .as("the old lease is dead")
                .isEqualTo(Result.STALE);
        assertThat(store.transitions()
                        .requeue(JobUuid.random(), j.lease(), AttemptOutcome.DECLINED, 5, tick())
                        .result())
                .isEqualTo(Result.NOT_FOUND);

        Leased running = claimedJob();
        store.transitions().start(running.uuid(), running.lease(), tick());
        assertThat(store.transitions()
                        .requeue(running.uuid(), running.lease(), AttemptOutcome.DECLINED, 5, tick())
                        .result())
                .as("a started job is never requeued")
                .isEqualTo(Result.CONFLICT);
        assertThatThrownBy(() ->
                        store.transitions().requeue(running.uuid(), running.lease(), AttemptOutcome.FAILED, 5, tick()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requeuesAreBoundedThenTheJobFails() {
        Spec s = spec();
        Runner r = runner(s);
        Job job = submit(project(org(PlanTier.TEAM)), s, 200);
        for (int i = 1; i <= 2; i++) {
            Leased l = claimOne(r);
            Transition t =
                    store.transitions().requeue(l.uuid(), l.lease(), AttemptOutcome.LOST_BEFORE_START, 2, tick());
            assertThat(t.job().status()).isEqualTo(JobStatus.PENDING);
            assertThat(t.job().requeues()).isEqualTo(i);
        }
        Leased last = claimOne(r);
        Transition t =
                store.transitions().requeue(last.uuid(), last.lease(), AttemptOutcome.LOST_BEFORE_START, 2, tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).isEqualTo(JobStatus.FAILED);
        assertThat(t.job().error()).contains("3 times without starting").contains("max_requeues is 2");
        assertThat(store.runs().attempts(job.id()))
                .hasSize(3)
                .allMatch(a -> a.outcome() == AttemptOutcome.LOST_BEFORE_START);
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), tick())).isEmpty();
    }

    @Test
    void aJobThatOptedInIsRetriedAsANewAttemptAfterItsBackoff() {
        Spec s = spec();
        Runner r = runner(s);
        Job job = submit(project(org(PlanTier.TEAM)), s, 200, "10.0.0.1", tick(), new RetryPolicy(2, 30, false));
        Leased first = claimOne(r);
        store.transitions().start(first.uuid(), first.lease(), tick());
        Transition t = store.transitions().fail(first.uuid(), first.lease(), "exit 1", AttemptOutcome.FAILED, tick());
        assertThat(t.result()).isEqualTo(Result.APPLIED);
        assertThat(t.job().status()).as("retried").isEqualTo(JobStatus.PENDING);
        assertThat(t.job().lease()).isNull();
        assertThat(t.job().started()).isNull();
        assertThat(t.job().notBefore()).as("its backoff").isEqualTo(now.plusSeconds(30));
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), now.plusSeconds(29)))
                .as("within the backoff")
                .isEmpty();
        now = now.plusSeconds(30);
        Leased second = claimOne(r);
        assertThat(second.job().id()).isEqualTo(job.id());
        assertThat(second.job().attempt()).isEqualTo(2);
        assertThat(store.transitions()
                        .complete(first.uuid(), first.lease(), tick())
                        .result())
                .as("the first attempt is fenced off")
                .isEqualTo(Result.STALE);
        store.transitions().start(second.uuid(), second.lease(), tick());
        Transition last =
                store.transitions().fail(second.uuid(), second.lease(), "exit 1", AttemptOutcome.FAILED, tick());
        assertThat(last.job().status()).as("attempts exhausted").isEqualTo(JobStatus.FAILED);
    }

    @Test
    void aLongBackoffDoesNotOverflow() {
        Spec s = spec();
        Runner r = runner(s);
        submit(project(org(PlanTier.TEAM)), s, 200, "10.0.0.1", tick(), new RetryPolicy(2, 86_400, false));
        Leased first = claimOne(r);
        store.transitions().start(first.uuid(), first.lease(), tick());
        assertThat(store.transitions()
                        .fail(first.uuid(), first.lease(), "exit 1", AttemptOutcome.FAILED, tick())
                        .job()
                        .status())
                .isEqualTo(JobStatus.PENDING);
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), now.plusSeconds(86_399)))
                .isEmpty();
        assertThat(TestClaims.claim(store, r.id(), LeaseId.random(), now.plusSeconds(86_400)))
                .isPresent();
    }

    @Test
    void failRefusesOutcomesThatAreNotFailures() {
        Leased j = claimedJob();
        assertThatThrownBy(() -> store.transitions().fail(j.uuid(), j.lease(), "x", AttemptOutcome.COMPLETED, tick()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.transitions().fail(j.uuid(), j.lease(), "x", AttemptOutcome.CANCELED, tick()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(reload(j.job()).status()).isEqualTo(JobStatus.CLAIMED);
    }

    @Test
    void aLostRunnerIsRetriedOnlyWhenThePolicySaysSo() {
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org(PlanTier.TEAM));
        submit(p, s, 200, "10.0.0.1", tick(), new RetryPolicy(3, 0, false));
        Leased a = claimOne(r);
        store.transitions().start(a.uuid(), a.lease(), tick());
        assertThat(store.transitions()
                        .fail(a.uuid(), a.lease(), "lost", AttemptOutcome.LOST, tick())
                        .job()
                        .status())
                .isEqualTo(JobStatus.FAILED);

        submit(p, s, 200, "10.0.0.1", tick(), new RetryPolicy(3, 0, true));
        Leased b = claimOne(r);
        store.transitions().start(b.uuid(), b.lease(), tick());
        assertThat(store.transitions()
                        .fail(b.uuid(), b.lease(), "lost", AttemptOutcome.LOST, tick())
                        .job()
                        .status())
                .isEqualTo(JobStatus.PENDING);
    }

    @Test
    void aFailedJobIsNotRetriedByDefault() {
        Leased j = claimedJob();
        store.transitions().start(j.uuid(), j.lease(), tick());
        assertThat(store.transitions()
                        .fail(j.uuid(), j.lease(), "exit 1", AttemptOutcome.FAILED, tick())
                        .job()
                        .status())
                .isEqualTo(JobStatus.FAILED);
    }

    // ---- liveness, billing, recovery queries -------------------------------------------------------

    @Test
    void jobHeartbeatsAreBatchedAndOnlyTouchInFlightJobs() {
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org(PlanTier.TEAM));
        Job pending = submit(p, s, 200);
        Leased a = claimOne(r);
        Job pending2 = submit(p, s, 200);
        Leased b = claimOne(r);
        store.transitions().start(b.uuid(), b.lease(), tick());
        Job waiting = submit(p, s, 200);
        Instant seen = tick();
        store.liveness().recordJobHeartbeats(Map.of(a.uuid(), seen, b.uuid(), seen, waiting.uuid(), seen));
        assertThat(reload(a.job()).lastHeartbeat()).isEqualTo(seen);
        assertThat(reload(b.job()).lastHeartbeat()).isEqualTo(seen);
        assertThat(reload(waiting).lastHeartbeat())
                .as("pending jobs have no liveness")
                .isNull();
        store.liveness().recordJobHeartbeats(Map.of(a.uuid(), seen.minusSeconds(5)));
        assertThat(reload(a.job()).lastHeartbeat()).as("never goes back").isEqualTo(seen);
        store.transitions().complete(a.uuid(), a.lease(), tick());
        Instant after = tick();
        store.liveness().recordJobHeartbeats(Map.of(a.uuid(), after));
        assertThat(reload(a.job()).lastHeartbeat())
                .as("finished jobs are left alone")
                .isEqualTo(seen);
        assertThat(a.job().id()).isEqualTo(pending.id());
        assertThat(b.job().id()).isEqualTo(pending2.id());
    }

    @Test
    void billMinutesNeverCountsAMinuteTwice() {
        Organization org = org(PlanTier.TEAM);
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org);
        submit(p, s, 200);
        submit(p, s, 200);
        Leased a = claimOne(r);
        Leased b = claimOne(r);
        assertThat(store.liveness().billMinutes(a.uuid(), 3, tick())).isEqualTo(3);
        assertThat(store.liveness().billMinutes(a.uuid(), 3, tick())).isZero();
        assertThat(store.liveness().billMinutes(a.uuid(), 2, tick())).isZero();
        assertThat(store.liveness().billMinutes(a.uuid(), 5, tick())).isEqualTo(2);
        assertThat(store.liveness().billMinutes(b.uuid(), 1, tick())).isEqualTo(1);
        assertThat(store.liveness().billMinutes(JobUuid.random(), 1, tick())).isZero();
        assertThat(reload(a.job()).lastBilledMinute()).isEqualTo(5);
        assertThat(store.liveness().billedMinutes(org.id())).isEqualTo(6);
        assertThat(store.liveness().billedMinutes(org(PlanTier.FREE).id())).isZero();
    }

    @Test
    void concurrentBillingOfOneJobBillsEachMinuteOnce() throws Exception {
        Leased j = claimedJob();
        AtomicInteger billed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                fs.add(pool.submit(() -> {
                    for (int m = 1; m <= 20; m++)
                        billed.addAndGet(store.liveness().billMinutes(j.uuid(), m, now));
                    return null;
                }));
            }
            for (Future<?> f : fs) f.get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(billed.get()).isEqualTo(20);
    }

    @Test
    void recoveryQueriesFindInFlightAndCompletedUnprocessedJobs() {
        Spec s = spec();
        Runner r1 = runner(s);
        Runner r2 = runner(s);
        Project p = project(org(PlanTier.TEAM));
        for (int i = 0; i < 5; i++) submit(p, s, 200);
        Leased claimed = claimOne(r1);
        Leased running = claimOne(r2);
        store.transitions().start(running.uuid(), running.lease(), tick());
        Leased completed = claimOne(r1);
        store.transitions().complete(completed.uuid(), completed.lease(), tick());
        Leased processed = claimOne(r1);
        store.transitions().complete(processed.uuid(), processed.lease(), tick());
        store.transitions().process(processed.uuid(), "{}", tick());

        assertThat(store.liveness().inFlightJobs())
                .extracting(Job::id)
                .containsExactlyInAnyOrder(claimed.job().id(), running.job().id());
        assertThat(store.liveness().completedUnprocessedJobs())
                .extracting(Job::id)
                .containsExactly(completed.job().id());
        Set<Long> pendingLeft = new HashSet<>();
        store.runs()
                .listJobs(p.id(), new JobFilter(JobStatus.PENDING, null, null, 10, 0))
                .forEach(j -> pendingLeft.add(j.id()));
        assertThat(pendingLeft).hasSize(1);
    }

    @Test
    void statementErrorsNameTheStatementButNeverItsArguments() {
        LeaseId secret = LeaseId.random();
        assertThatThrownBy(() -> ((JdbcStore) store)
                        .jdbi.useHandle(h -> h.createUpdate("UPDATE no_such_table SET lease = :lease")
                                .bind("lease", secret.value())
                                .execute()))
                .hasMessageContaining("no_such_table")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(secret.value()));
    }

    @Test
    void timesRoundTripAtMicrosecondPrecision() {
        Instant precise = Instant.parse("2026-03-01T10:00:00.123456Z");
        Organization org = store.organizations().createOrganization("T", new Slug("t"), PlanTier.TEAM, precise);
        assertThat(store.organizations()
                        .findOrganization(org.id())
                        .orElseThrow()
                        .created())
                .isEqualTo(precise);
    }

    // ---- Open Job Spec jobs ------------------------------------------------------------------

    private static OjsRow ojs(String id, String queue, int priority) {
        return OjsRow.fresh(id, queue, "available", priority, null, "{\"id\":\"" + id + "\"}");
    }

    @Test
    void ojsJobsAreInsertedOnceAndFetchedInPriorityThenEnqueueOrder() {
        assertThat(store.ojs().insertJob(ojs("a", "q", 0), now)).isTrue();
        assertThat(store.ojs().insertJob(ojs("b", "q", 5), now)).isTrue();
        assertThat(store.ojs().insertJob(ojs("c", "q", 0), now)).isTrue();
        assertThat(store.ojs().insertJob(ojs("d", "other", 9), now)).isTrue();
        assertThat(store.ojs().insertJob(ojs("a", "q", 100), now))
                .as("an existing id")
                .isFalse();
        assertThat(store.ojs().jobs("q", "available", 10))
                .extracting(OjsRow::id)
                .containsExactly("b", "a", "c");
        assertThat(store.ojs().findJob("a").orElseThrow().priority()).isZero();
        assertThat(store.ojs().findJob("zzz")).isEmpty();
        assertThat(store.ojs().counts())
                .containsEntry("q", Map.of("available", 3L))
                .containsEntry("other", Map.of("available", 1L));
    }

    @Test
    void anOjsUpdateIsACompareAndSetOnTheVersion() {
        store.ojs().insertJob(ojs("a", "q", 0), now);
        OjsRow row = store.ojs().findJob("a").orElseThrow();
        Instant deadline = now.plusSeconds(30);
        OjsRow active = new OjsRow(row.seq(), "a", "q", "active", 0, null, deadline, "w1", row.version(), "{\"v\":1}");
        assertThat(store.ojs().updateJob(active, now)).isTrue();
        // A second writer that read the same version loses and changes nothing.
        OjsRow stale = new OjsRow(row.seq(), "a", "q", "active", 0, null, deadline, "w2", row.version(), "{\"v\":2}");
        assertThat(store.ojs().updateJob(stale, now)).isFalse();
        OjsRow stored = store.ojs().findJob("a").orElseThrow();
        assertThat(stored.workerId()).isEqualTo("w1");
        assertThat(stored.deadline()).isEqualTo(deadline);
        assertThat(stored.version()).isEqualTo(row.version() + 1);
        assertThat(store.ojs().jobs("q", "available", 10)).isEmpty();
        assertThat(store.ojs().deleteJob("a", row.version()))
                .as("stale version")
                .isFalse();
        assertThat(store.ojs().deleteJob("a", stored.version())).isTrue();
        assertThat(store.ojs().findJob("a")).isEmpty();
    }

    @Test
    void dueOjsJobsAreWaitingJobsWhoseTimeCameAndLeasesPastTheirDeadline() {
        store.ojs().insertJob(OjsRow.fresh("later", "q", "scheduled", 0, now.plusSeconds(60), "{}"), now);
        store.ojs().insertJob(OjsRow.fresh("soon", "q", "scheduled", 0, now.plusSeconds(5), "{}"), now);
        store.ojs().insertJob(ojs("leased", "q", 0), now);
        OjsRow leased = store.ojs().findJob("leased").orElseThrow();
        store.ojs()
                .updateJob(
                        new OjsRow(
                                leased.seq(),
                                "leased",
                                "q",
                                "active",
                                0,
                                null,
                                now.plusSeconds(10),
                                "w",
                                leased.version(),
                                "{}"),
                        now);
        assertThat(store.ojs().dueJobs(now, 10)).isEmpty();
        assertThat(store.ojs().dueJobs(now.plusSeconds(5), 10))
                .extracting(OjsRow::id)
                .containsExactly("soon");
        assertThat(store.ojs().dueJobs(now.plusSeconds(10), 10))
                .extracting(OjsRow::id)
                .containsExactly("soon", "leased");
        assertThat(store.ojs().jobsInStates(List.of("scheduled"), 10))
                .extracting(OjsRow::id)
                .containsExactly("later", "soon");
    }

    @Test
    void ojsEventsAndPausedQueues() {
        store.ojs().appendEvent("job.enqueued", "q", "a", "{\"n\":1}", now);
        store.ojs().appendEvent("job.completed", "q", "a", "{\"n\":2}", now);
        store.ojs().appendEvent("job.enqueued", "r", "b", "{\"n\":3}", now);
        assertThat(store.ojs().events(List.of(), List.of(), 10))
                .extracting(OjsEvent::data)
                .containsExactly("{\"n\":3}", "{\"n\":2}", "{\"n\":1}");
        assertThat(store.ojs().events(List.of("job.enqueued"), List.of("q"), 10))
                .extracting(OjsEvent::jobId)
                .containsExactly("a");
        assertThat(store.ojs().pausedQueues()).isEmpty();
        store.ojs().setQueuePaused("q", true);
        store.ojs().setQueuePaused("r", true);
        store.ojs().setQueuePaused("r", false);
        assertThat(store.ojs().pausedQueues()).containsExactly("q");
    }

    @Test
    void anOjsCronFiresOnceByCompareAndSetOfItsNextRun() {
        store.ojs().putCron(new OjsCron("nightly", now.plusSeconds(60), 0, "{}"), now);
        OjsCron cron = store.ojs().crons().get(0);
        assertThat(cron.nextRun()).isEqualTo(now.plusSeconds(60));
        assertThat(store.ojs().updateCron(new OjsCron("nightly", now.plusSeconds(120), cron.version(), "{\"n\":1}")))
                .isTrue();
        // The second node read the same version: it does not fire the run again.
        assertThat(store.ojs().updateCron(new OjsCron("nightly", now.plusSeconds(120), cron.version(), "{\"n\":2}")))
                .isFalse();
        assertThat(store.ojs().crons().get(0).document()).isEqualTo("{\"n\":1}");
        store.ojs().putCron(new OjsCron("nightly", now.plusSeconds(30), 0, "{}"), now);
        assertThat(store.ojs().crons())
                .singleElement()
                .extracting(OjsCron::nextRun)
                .isEqualTo(now.plusSeconds(30));
        assertThat(store.ojs().deleteCron("nightly")).isTrue();
        assertThat(store.ojs().deleteCron("nightly")).isFalse();
        assertThat(store.ojs().crons()).isEmpty();
    }

    @Test
    void anOjsWorkflowAdvancesByCompareAndSetTogetherWithTheJobsItEnqueues() {
        store.ojs()
                .insertWorkflow(new OjsWorkflow("wf", "running", 0, "{\"step\":0}"), List.of(ojs("s0", "w", 0)), now);
        assertThat(store.ojs().findJob("s0")).isPresent();
        assertThat(store.ojs()
                        .advanceWorkflow(
                                new OjsWorkflow("wf", "running", 0, "{\"step\":1}"), List.of(ojs("s1", "w", 0)), now))
                .isTrue();
        // A second node that read version 0 too loses: neither its document nor its job is written.
        assertThat(store.ojs()
                        .advanceWorkflow(
                                new OjsWorkflow("wf", "running", 0, "{\"step\":9}"),
                                List.of(ojs("s1-again", "w", 0)),
                                now))
                .isFalse();
        assertThat(store.ojs().findJob("s1-again")).isEmpty();
        OjsWorkflow stored = store.ojs().findWorkflow("wf").orElseThrow();
        assertThat(stored.document()).isEqualTo("{\"step\":1}");
        assertThat(stored.version()).isEqualTo(1);
        assertThat(store.ojs().advanceWorkflow(new OjsWorkflow("wf", "completed", 1, "{}"), List.of(), now))
                .isTrue();
        assertThat(store.ojs().workflowsInState("running", null, 10)).isEmpty();
        assertThat(store.ojs().workflowsInState("completed", null, 10))
                .extracting(OjsWorkflow::id)
                .containsExactly("wf");
        store.ojs().insertWorkflow(new OjsWorkflow("wa", "running", 0, "{}"), List.of(), now);
        store.ojs().insertWorkflow(new OjsWorkflow("wb", "running", 0, "{}"), List.of(), now);
        assertThat(store.ojs().workflowsInState("running", null, 1))
                .extracting(OjsWorkflow::id)
                .containsExactly("wa");
        assertThat(store.ojs().workflowsInState("running", "wa", 10))
                .extracting(OjsWorkflow::id)
                .containsExactly("wb");
        assertThat(store.ojs().jobsById(List.of("s0", "s1", "nope")))
                .extracting(OjsRow::id)
                .containsExactlyInAnyOrder("s0", "s1");
    }

    @Test
    void aUniqueOjsJobConflictsWithinItsStatesAndPeriodAndReplaceCancelsTheOldOne() {
        OjsUnique available = new OjsUnique("k", List.of("available"), null, null);
        assertThat(store.ojs().insertUnique(ojs("a", "q", 0), available, now)).isEmpty();
        assertThat(store.ojs().insertUnique(ojs("b", "q", 0), available, now))
                .map(OjsRow::id)
                .contains("a");
        assertThat(store.ojs().findJob("b")).as("refused, not written").isEmpty();
        assertThat(store.ojs().uniqueConflict(available)).map(OjsRow::id).contains("a");
        assertThat(store.ojs()
                        .insertUnique(ojs("c", "q", 0), new OjsUnique("other", List.of("available"), null, null), now))
                .isEmpty();
        // Outside the period (created before since) or in a state not listed, a's key is free again.
        assertThat(store.ojs()
                        .insertUnique(
                                ojs("d", "q", 0),
                                new OjsUnique("k", List.of("available"), now.plusSeconds(1), null),
                                now.plusSeconds(1)))
                .isEmpty();
        assertThat(store.ojs().insertUnique(ojs("e", "q", 0), new OjsUnique("k", List.of("active"), null, null), now))
                .isEmpty();
        // replace: the oldest conflicting job is cancelled in the transaction that inserts the new one.
        OjsUnique replace = new OjsUnique(
                "k",
                List.of("available"),
                null,
                row -> new OjsRow(
                        row.seq(),
                        row.id(),
                        row.queue(),
                        "cancelled",
                        row.priority(),
                        null,
                        null,
                        null,
                        row.version(),
                        "{}"));
        assertThat(store.ojs().insertUnique(ojs("f", "q", 0), replace, now)).isEmpty();
        assertThat(store.ojs().findJob("a").orElseThrow().state()).isEqualTo("cancelled");
        assertThat(store.ojs().findJob("f")).isPresent();
        assertThatThrownBy(() -> store.ojs()
                        .insertUnique(ojs("f", "q", 0), new OjsUnique("z", List.of("available"), null, null), now))
                .isInstanceOf(StoreException.class);
        // Pruning drops only the lock rows: the conflict is found among the jobs all the same.
        assertThat(store.ojs().pruneUniqueKeys(now.plusSeconds(2)))
                .as("the rows of k and other")
                .isEqualTo(2);
        assertThat(store.ojs().insertUnique(ojs("g", "q", 0), available, now.plusSeconds(3)))
                .map(OjsRow::id)
                .contains("d");
        assertThat(store.ojs().pruneUniqueKeys(now.plusSeconds(2)))
                .as("k was pushed again at +3 s")
                .isZero();
    }

    @Test
    void anOjsRateLimitHandsOutAtMostItsSlotsPerWindow() {
        assertThat(store.ojs().takeRateSlot("free", now)).as("no limit").isTrue();
        store.ojs().setQueueRateLimit("q", 2, java.time.Duration.ofSeconds(1));
        assertThat(store.ojs().rateLimitedQueues()).containsExactly("q");
        assertThat(store.ojs().takeRateSlot("q", now)).isTrue();
        assertThat(store.ojs().takeRateSlot("q", now.plusMillis(500))).isTrue();
        assertThat(store.ojs().takeRateSlot("q", now.plusMillis(999))).isFalse();
        assertThat(store.ojs().takeRateSlot("q", now.plusMillis(1000)))
                .as("a new window")
                .isTrue();
        assertThat(store.ojs().takeRateSlot("q", now.plusMillis(1001))).isTrue();
        assertThat(store.ojs().takeRateSlot("q", now.plusMillis(1002))).isFalse();
        store.ojs().setQueuePaused("q", true);
        assertThat(store.ojs().pausedQueues()).containsExactly("q");
        assertThat(store.ojs().rateLimitedQueues())
                .as("pausing keeps the limit")
                .containsExactly("q");
        store.ojs().setQueueRateLimit("q", null, null);
        assertThat(store.ojs().rateLimitedQueues()).isEmpty();
    }

    @Test
    void anOjsWorkerIsItsLastBeat() {
        assertThat(store.ojs().findWorker("w")).isEmpty();
        store.ojs().putWorker(new OjsWorker("w", "running", now, "{}"));
        store.ojs().putWorker(new OjsWorker("w", "draining", now.plusSeconds(5), "{\"n\":2}"));
        assertThat(store.ojs().findWorker("w"))
                .contains(new OjsWorker("w", "draining", now.plusSeconds(5), "{\"n\":2}"));
    }

    /** Issue 47: registration, directions a beat does not erase, silence found and terminated by compare-and-set. */
    @Test
    void aRegisteredOjsWorkerIsDirectedAndTerminatedWhenSilent() {
        Duration timeout = Duration.ofSeconds(30);
        store.ojs().registerWorker(new OjsWorker("w", "running", now, "{}", null, timeout));
        store.ojs().putWorker(new OjsWorker("beats-only", "running", now, "{}"));
        assertThat(store.ojs().directWorker("w", "quiet")).isTrue();
        store.ojs().putWorker(new OjsWorker("w", "running", now.plusSeconds(10), "{\"b\":1}"));
        assertThat(store.ojs().findWorker("w"))
                .contains(new OjsWorker("w", "running", now.plusSeconds(10), "{\"b\":1}", "quiet", timeout));
        assertThat(store.ojs().workers()).extracting(OjsWorker::id).containsExactly("beats-only", "w");

        assertThat(store.ojs().silentWorkers(now.plusSeconds(39))).isEmpty();
        List<OjsWorker> silent = store.ojs().silentWorkers(now.plusSeconds(40));
        assertThat(silent)
                .extracting(OjsWorker::id)
                .as("a worker that never registered is never silent")
                .containsExactly("w");
        store.ojs().putWorker(new OjsWorker("w", "running", now.plusSeconds(41), "{}"));
        assertThat(store.ojs().terminateWorker(silent.get(0), "{}"))
                .as("a beat since the read wins")
                .isFalse();
        OjsWorker again = store.ojs().silentWorkers(now.plusSeconds(80)).get(0);
        assertThat(store.ojs().terminateWorker(again, "{\"t\":1}")).isTrue();
        assertThat(store.ojs().terminateWorker(again, "{}")).as("once").isFalse();
        assertThat(store.ojs().findWorker("w")).hasValueSatisfying(w -> {
            assertThat(w.state()).isEqualTo("terminated");
            assertThat(w.directive()).isNull();
        });
        assertThat(store.ojs().directWorker("w", "terminate"))
                .as("a terminated worker takes no direction")
                .isFalse();
        assertThat(store.ojs().silentWorkers(now.plusSeconds(200))).isEmpty();

        store.ojs().registerWorker(new OjsWorker("w", "running", now.plusSeconds(300), "{}", null, timeout));
        assertThat(store.ojs().findWorker("w").orElseThrow().state())
                .as("registering again revives it")
                .isEqualTo("running");
    }

    @Test
    void aRegistryUploadAdvancesByCompareAndSetAndEndsOnce() {
        Instant t0 = Instant.parse("2026-03-01T10:00:00Z");
        store.uploads().createRegistryUpload(new RegistryUpload("u1", "p", "img", 0, "[]", t0, t0));
        store.uploads().createRegistryUpload(new RegistryUpload("u2", "p", "img", 0, "[]", t0, t0.plusSeconds(10)));
        assertThat(store.uploads().findRegistryUpload("u1"))
                .hasValueSatisfying(u -> assertThat(u.repository()).isEqualTo("img"));
        assertThat(store.uploads()
                        .advanceRegistryUpload("u1", 0, 5, "[{\"name\":\"a\",\"size\":5}]", t0.plusSeconds(20)))
                .isTrue();
        // A second node read the session at 0 bytes too: its chunk is not recorded.
        assertThat(store.uploads()
                        .advanceRegistryUpload("u1", 0, 7, "[{\"name\":\"b\",\"size\":7}]", t0.plusSeconds(21)))
                .isFalse();
        RegistryUpload u1 = store.uploads().findRegistryUpload("u1").orElseThrow();
        assertThat(u1.size()).isEqualTo(5);
        assertThat(u1.chunks()).contains("\"a\"");
        assertThat(u1.updated()).isEqualTo(t0.plusSeconds(20));
        assertThat(store.uploads().countRegistryUploads()).isEqualTo(2);
        assertThat(store.uploads().idleRegistryUploads(t0.plusSeconds(15), 10))
                .extracting(RegistryUpload::id)
                .containsExactly("u2");

        assertThat(store.uploads().deleteRegistryUpload("u1", 4))
                .as("it holds 5 bytes by now")
                .isFalse();
        assertThat(store.uploads().deleteRegistryUpload("u1", 5)).isTrue();
        assertThat(store.uploads().deleteRegistryUpload("u1", 5))
                .as("ended once")
                .isFalse();
        assertThat(store.uploads().deleteRegistryUpload("u2", -1)).isTrue();
        assertThat(store.uploads().findRegistryUpload("u1")).isEmpty();
        assertThat(store.uploads().countRegistryUploads()).isZero();
    }

    // ---- claims for several waiting runners in one transaction (issue 13) ----------------------

    private static ClaimRequest request(Runner runner, int slots, Spec... specs) {
        Set<Long> ids = new HashSet<>();
        for (Spec s : specs) ids.add(s.id());
        return new ClaimRequest(runner.id(), slots, ids, ClaimFilter.NONE, false);
    }

    @Test
    void claimEachClaimsEveryJobOnceAndServesEachRunnerAtMostItsSlots() {
        Spec s = spec();
        Runner a = runner(s);
        Runner b = runner(s);
        Runner c = runner(s);
        Runner d = runner(s);
        Project p = project(org(PlanTier.TEAM));
        List<Long> submitted = new ArrayList<>();
        for (int i = 0; i < 4; i++) submitted.add(submit(p, s, 200).id());

        Instant at = tick();
        List<List<Job>> claimed = store.claims()
                .claimEach(
                        List.of(request(a, 2, s), request(b, 1, s), request(c, 3, s), request(d, 1, s)),
                        at,
                        at.plusSeconds(30));

        assertThat(claimed).hasSize(4);
        assertThat(claimed.get(0)).hasSize(2);
        assertThat(claimed.get(1)).hasSize(1);
        assertThat(claimed.get(2)).as("only one job left for c").hasSize(1);
        assertThat(claimed.get(3)).as("nothing left for d").isEmpty();
        List<Long> ids = claimed.stream().flatMap(List::stream).map(Job::id).toList();
        assertThat(ids).as("in claim order, each once").containsExactlyElementsOf(submitted);
        Runner[] owners = {a, b, c};
        for (int i = 0; i < 3; i++) {
            for (Job job : claimed.get(i)) {
                assertThat(job.status()).isEqualTo(JobStatus.CLAIMED);
                assertThat(job.runnerId()).isEqualTo(owners[i].id());
                assertThat(reload(job).holds(job.lease())).isTrue();
                Attempt attempt = store.runs().findAttempt(job.id(), 1).orElseThrow();
                assertThat(attempt.runnerId()).isEqualTo(owners[i].id());
                assertThat(attempt.lease().matches(job.lease()))
                        .as("the attempt carries the job's own lease")
                        .isTrue();
            }
        }
        assertThat(claimed.get(0).get(0).lease().matches(claimed.get(0).get(1).lease()))
                .as("every job its own lease")
                .isFalse();
        assertThat(store.claims()
                        .claimEach(List.of(request(d, 1, s)), tick(), now.plusSeconds(30))
                        .getFirst())
                .isEmpty();
    }

    @Test
    void claimEachSeesItsOwnEarlierClaimsForTierLimits() {
        Spec s = spec();
        Runner a = runner(s);
        Runner b = runner(s);
        Organization free = org(PlanTier.FREE);
        submit(project(free), s, 100, "10.0.0.1", tick());
        submit(project(free), s, 100, "10.0.0.2", tick());
        Instant at = tick();
        List<List<Job>> claimed =
                store.claims().claimEach(List.of(request(a, 1, s), request(b, 1, s)), at, at.plusSeconds(30));
        assertThat(claimed.get(0)).hasSize(1);
        assertThat(claimed.get(1))
                .as("one job in flight per free organization, counted inside the same transaction")
                .isEmpty();
    }

    @Test
    void aRunnersOwnEmptyClaimDoesNotStopTheNextRunnerOfTheSameSpecs() {
        Spec s = spec();
        Runner archived = runner(s);
        Runner declining = runner(s);
        Runner unlabelled = runner(s);
        Runner labelled = runner(s);
        store.runners().updateRunner(archived.id(), null, null, true, tick());
        store.runners().setRunnerLabels(labelled.id(), true, Map.of("gpu", "a100"), tick());
        Project p = project(org(PlanTier.TEAM));
        Job plain = submit(p, s, 200);
        Job needsGpu = store.runs()
                .createRun(
                        new NewReport(p.id(), "main", "bench-box", "json", null, null, null),
                        new NewJob(
                                s.id(),
                                "10.0.0.1",
                                config(p),
                                60,
                                200,
                                RetryPolicy.NONE,
                                null,
                                null,
                                new JobLabels(Map.of("gpu", "a100"), Map.of())),
                        p.organizationId(),
                        tick())
                .job();
        // The declining runner declined the plain job; it is still pending for the others.
        Leased first = claimOne(declining);
        assertThat(first.job().id()).isEqualTo(plain.id());
        assertThat(store.transitions()
                        .requeue(first.uuid(), first.lease(), AttemptOutcome.DECLINED, 5, tick())
                        .result())
                .isEqualTo(Result.APPLIED);

        Instant at = tick();
        List<List<Job>> claimed = store.claims()
                .claimEach(
                        List.of(
                                request(archived, 1, s),
                                new ClaimRequest(declining.id(), 1, Set.of(s.id()), ClaimFilter.NONE, true),
                                request(unlabelled, 2, s),
                                request(labelled, 1, s)),
                        at,
                        at.plusSeconds(30));
        assertThat(claimed.get(0)).as("archived").isEmpty();
        assertThat(claimed.get(1)).as("declined it").isEmpty();
        assertThat(claimed.get(2))
                .as("takes the plain job but lacks the label")
                .extracting(Job::id)
                .containsExactly(plain.id());
        assertThat(claimed.get(3)).as("has the label").extracting(Job::id).containsExactly(needsGpu.id());
    }

    @Test
    void anotherRunnersCanaryDoesNotCloseItsSpecsForTheRestOfTheBatch() {
        Spec s = spec();
        Runner first = runner(s);
        Runner canaryRunner = runner(s);
        Project p = project(org(PlanTier.TEAM));
        Job canary = store.runs()
                .createRun(
                        new NewReport(p.id(), "main", "bench-box", "json", null, null, null),
                        new NewJob(
                                s.id(),
                                "10.0.0.1",
                                config(p),
                                60,
                                200,
                                RetryPolicy.NONE,
                                null,
                                null,
                                JobLabels.NONE,
                                canaryRunner.id()),
                        p.organizationId(),
                        tick())
                .job();

        Instant at = tick();
        List<List<Job>> claimed = store.claims()
                .claimEach(List.of(request(first, 1, s), request(canaryRunner, 1, s)), at, at.plusSeconds(30));
        assertThat(claimed.get(0)).as("not its canary").isEmpty();
        assertThat(claimed.get(1))
                .as("its own canary, in the same batch")
                .extracting(Job::id)
                .containsExactly(canary.id());
    }

    @Test
    void concurrentClaimEachNeverHandsOutAJobTwice() throws Exception {
        Spec s = spec();
        Project p = project(org(PlanTier.TEAM));
        List<Runner> runners = new ArrayList<>();
        for (int i = 0; i < 8; i++) runners.add(runner(s));
        int jobs = 40;
        for (int i = 0; i < jobs; i++) submit(p, s, 200);
        Instant at = tick();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                List<Runner> mine = runners.subList(t * 2, t * 2 + 2);
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 10; round++) {
                        for (List<Job> claimed : store.claims()
                                .claimEach(
                                        List.of(request(mine.get(0), 2, s), request(mine.get(1), 1, s)),
                                        at,
                                        at.plusSeconds(30))) {
                            for (Job job : claimed) if (!seen.add(job.id())) duplicates.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(duplicates).hasValue(0);
        assertThat(seen).hasSize(jobs);
        assertThat(store.runs().hasPendingFor(List.of(s.id()))).isFalse();
    }

    // ---- dispatch in one commit (decision 0063) ------------------------------------------------

    private ClaimedRun submitAndClaim(Project project, Spec spec, int priority, String ip, ClaimRequest claim) {
        Instant at = tick();
        return store.runs()
                .createRunAndClaim(
                        new NewReport(project.id(), "main", "bench-box", "json", null, null, null),
                        new NewJob(spec.id(), ip, config(project), 60, priority, RetryPolicy.NONE),
                        project.organizationId(),
                        at,
                        claim,
                        at.plusSeconds(30));
    }

    @Test
    void createRunAndClaimTakesItsOwnJobInTheSameCommit() {
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org(PlanTier.TEAM));

        ClaimedRun run = submitAndClaim(p, s, 200, "10.0.0.1", request(r, 1, s));

        assertThat(run.job().status()).as("the job as inserted").isEqualTo(JobStatus.PENDING);
        assertThat(run.claimedItsJob()).isTrue();
        Job claimed = run.claimed().get(0);
        assertThat(claimed.id()).isEqualTo(run.job().id());
        assertThat(claimed.status()).isEqualTo(JobStatus.CLAIMED);
        assertThat(claimed.runnerId()).isEqualTo(r.id());
        assertThat(claimed.attempt()).isEqualTo(1);
        assertThat(reload(run.job()).lease()).isEqualTo(claimed.lease());
        assertThat(store.runs().findAttempt(claimed.id(), 1).orElseThrow().lease())
                .as("the attempt opened by the claim")
                .isEqualTo(claimed.lease());
        assertThat(store.runs().hasPendingFor(List.of(s.id()))).isFalse();
        assertThat(store.transitions()
                        .start(claimed.uuid(), claimed.lease(), tick())
                        .result())
                .as("the lease the claim wrote is the job's")
                .isEqualTo(Result.APPLIED);
    }

    @Test
    void createRunAndClaimTakesAnOlderPendingJobFirstAndLeavesItsOwnPending() {
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org(PlanTier.TEAM));
        Job older = submit(p, s, 200);

        ClaimedRun run = submitAndClaim(p, s, 200, "10.0.0.1", request(r, 1, s));

        assertThat(run.claimed()).extracting(Job::id).containsExactly(older.id());
        assertThat(run.claimedItsJob()).isFalse();
        assertThat(reload(run.job()).status()).isEqualTo(JobStatus.PENDING);
        assertThat(store.runs().hasPendingFor(List.of(s.id()))).isTrue();
    }

    @Test
    void createRunAndClaimKeepsTheTierLimitsAndLeavesTheJobPending() {
        Spec s = spec();
        Runner r1 = runner(s);
        Runner r2 = runner(s);
        Project p = project(org(PlanTier.FREE));
        Job first = submit(p, s, 100, "10.0.0.1", tick());
        assertThat(claimOne(r1).job().id()).isEqualTo(first.id());

        ClaimedRun run = submitAndClaim(p, s, 100, "10.0.0.2", request(r2, 1, s));

        assertThat(run.claimed()).as("one job per organization in flight").isEmpty();
        assertThat(reload(run.job()).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void createRunAndClaimThatFailsCommitsNeitherTheJobNorAClaim() {
        Spec s = spec();
        Runner r = runner(s);
        Project p = project(org(PlanTier.TEAM));
        Job older = submit(p, s, 200);
        Instant at = tick();

        assertThatThrownBy(() -> store.runs()
                        .createRunAndClaim(
                                new NewReport(p.id(), "main", "bench-box", "json", null, null, null),
                                new NewJob(999_999L, "10.0.0.1", config(p), 60, 200, RetryPolicy.NONE),
                                p.organizationId(),
                                at,
                                request(r, 1, s),
                                at.plusSeconds(30)))
                .isInstanceOf(StoreException.class);

        assertThat(reload(older).status()).isEqualTo(JobStatus.PENDING);
        assertThat(store.runs().listJobs(p.id(), new JobFilter(null, null, null, 10, 0)))
                .extracting(Job::id)
                .containsExactly(older.id());
    }

    @Test
    void createRunAndClaimRacingClaimEachNeverHandsOutAJobTwice() throws Exception {
        Spec s = spec();
        Project p = project(org(PlanTier.TEAM));
        List<Runner> runners = new ArrayList<>();
        for (int i = 0; i < 8; i++) runners.add(runner(s));
        for (int i = 0; i < 10; i++) submit(p, s, 200);
        Instant at = tick();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        Set<Long> submitted = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                List<Runner> mine = runners.subList(t * 2, t * 2 + 2);
                boolean submits = t % 2 == 0;
                done.add(pool.submit(() -> {
                    for (int round = 0; round < 10; round++) {
                        List<List<Job>> claims;
                        if (submits) {
                            ClaimedRun run = store.runs()
                                    .createRunAndClaim(
                                            new NewReport(p.id(), "main", "bench-box", "json", null, null, null),
                                            new NewJob(s.id(), "10.0.0.1", config(p), 60, 200, RetryPolicy.NONE),
                                            p.organizationId(),
                                            at,
                                            request(mine.get(round % 2), 1, s),
                                            at.plusSeconds(30));
                            submitted.add(run.job().id());
                            claims = List.of(run.claimed());
                        } else {
                            claims = store.claims()
                                    .claimEach(
                                            List.of(request(mine.get(0), 2, s), request(mine.get(1), 1, s)),
                                            at,
                                            at.plusSeconds(30));
                        }
                        for (List<Job> claimed : claims)
                            for (Job job : claimed) if (!seen.add(job.id())) duplicates.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            pool.shutdownNow();
        }
        // What is left pending is claimed once more, so that every job is accounted for exactly once.
        List<List<Job>> rest;
        do {
            rest = store.claims().claimEach(List.of(request(runners.get(0), 100, s)), tick(), now.plusSeconds(30));
            for (Job job : rest.get(0)) if (!seen.add(job.id())) duplicates.incrementAndGet();
        } while (!rest.get(0).isEmpty());
        assertThat(duplicates).hasValue(0);
        assertThat(submitted).hasSize(20);
        assertThat(seen).hasSize(30);
        assertThat(store.runs().hasPendingFor(List.of(s.id()))).isFalse();
    }

    @Test
    void projectUuidIsTheProjectsOwn() {
        Project p = project(org(PlanTier.TEAM));
        Project other = project(org(PlanTier.TEAM));
        assertThat(store.organizations().projectUuid(999_999))
                .as("unknown id, nothing remembered")
                .isEmpty();
        for (int i = 0; i < 2; i++) {
            assertThat(store.organizations().projectUuid(p.id())).contains(p.uuid());
            assertThat(store.organizations().projectUuid(other.id())).contains(other.uuid());
        }
    }

    // ---- retries that tell the machine from the job (issue 41) ----------------------------------------

    /** A pull failure (the runner's own fault) is retried under on: [infrastructure]; the benchmark's exit 1 is not. */
    @Test
    void retryOnInfrastructureRetriesAPullFailureAndNotTheJobsOwnExit() {
        Spec s = spec();
        Runner r = runner(s);
        Job job = submit(
                project(org(PlanTier.TEAM)),
                s,
                200,
                "10.0.0.1",
                tick(),
                new RetryPolicy(3, 0, Set.of(FailureKind.INFRASTRUCTURE), Set.of()));
        Leased first = claimOne(r);
        Transition pull = store.transitions()
                .fail(
                        first.uuid(),
                        first.lease(),
                        "could not start: registry answered 503",
                        AttemptOutcome.FAILED,
                        tick(),
                        null,
                        new AttemptFailure(FailureCode.PULL_FAILED, null));
        assertThat(pull.job().status()).as("retried").isEqualTo(JobStatus.PENDING);
        Leased second = claimOne(r);
        Transition exit = store.transitions()
                .fail(
                        second.uuid(),
                        second.lease(),
                        "iteration 0 exited with code 1",
                        AttemptOutcome.FAILED,
                        tick(),
                        null,
                        new AttemptFailure(FailureCode.EXIT_CODE, 1));
        assertThat(exit.job().status())
                .as("the benchmark's own failure is signal")
                .isEqualTo(JobStatus.FAILED);
        assertThat(store.runs().attemptEnds(job.id()))
                .containsExactly(
                        Map.entry(1, new AttemptEnd(FailureKind.INFRASTRUCTURE, null, true, null)),
                        Map.entry(2, new AttemptEnd(FailureKind.FAILURE, 1, false, NotRetried.NOT_IN_RETRY_ON)));
        assertThat(store.runs().retryPolicy(job.id()))
                .contains(new RetryPolicy(3, 0, Set.of(FailureKind.INFRASTRUCTURE), Set.of()));
    }

    @Test
    void aFinalExitCodeIsNeverRetriedAndOthersAreUntilTheAttemptsAreSpent() {
        Spec s = spec();
        Runner r = runner(s);
        Job job = submit(
                project(org(PlanTier.TEAM)),
                s,
                200,
                "10.0.0.1",
                tick(),
                new RetryPolicy(2, 0, Set.of(FailureKind.FAILURE), Set.of(2, 3)));
        Leased first = claimOne(r);
        assertThat(failWith(first, AttemptOutcome.FAILED, 1).job().status()).isEqualTo(JobStatus.PENDING);
        Leased second = claimOne(r);
        assertThat(failWith(second, AttemptOutcome.FAILED, 1).job().status()).isEqualTo(JobStatus.FAILED);
        assertThat(store.runs().attemptEnds(job.id()).get(2).notRetried()).isEqualTo(NotRetried.ATTEMPTS_EXHAUSTED);

        Job finalCode = submit(
                project(org(PlanTier.TEAM)),
                s,
                200,
                "10.0.0.1",
                tick(),
                new RetryPolicy(2, 0, Set.of(FailureKind.FAILURE), Set.of(2, 3)));
        assertThat(failWith(claimOne(r), AttemptOutcome.FAILED, 3).job().status())
                .isEqualTo(JobStatus.FAILED);
        assertThat(store.runs().attemptEnds(finalCode.id()).get(1))
                .isEqualTo(new AttemptEnd(FailureKind.FAILURE, 3, false, NotRetried.FINAL_EXIT_CODE));
    }

    @Test
    void aLostRunnerIsRetriedOnlyWhenTheRetryOnListsIt() {
        Spec s = spec();
        Runner r = runner(s);
        Job notListed = submit(
                project(org(PlanTier.TEAM)),
                s,
                200,
                "10.0.0.1",
                tick(),
                new RetryPolicy(2, 0, Set.of(FailureKind.INFRASTRUCTURE, FailureKind.FAILURE), Set.of()));
        assertThat(failWith(claimOne(r), AttemptOutcome.LOST, null).job().status())
                .isEqualTo(JobStatus.FAILED);
        assertThat(store.runs().attemptEnds(notListed.id()).get(1))
                .isEqualTo(new AttemptEnd(FailureKind.RUNNER_LOST, null, false, NotRetried.NOT_IN_RETRY_ON));
        submit(
                project(org(PlanTier.TEAM)),
                s,
                200,
                "10.0.0.1",
                tick(),
                new RetryPolicy(2, 0, Set.of(FailureKind.RUNNER_LOST), Set.of()));
        assertThat(failWith(claimOne(r), AttemptOutcome.LOST, null).job().status())
                .isEqualTo(JobStatus.PENDING);
    }

    /** The older retry_when_runner_lost maps onto on: failures of job and machine always, a lost runner when it says so. */
    @Test
    void theOlderFieldMapsOntoRetryOn() {
        assertThat(new RetryPolicy(2, 0, false).on())
                .containsExactlyInAnyOrder(FailureKind.INFRASTRUCTURE, FailureKind.FAILURE);
        assertThat(new RetryPolicy(2, 0, true).on()).containsExactlyInAnyOrder(FailureKind.values());
        Spec s = spec();
        Runner r = runner(s);
        Job old = submit(project(org(PlanTier.TEAM)), s, 200, "10.0.0.1", tick(), new RetryPolicy(2, 0, false));
        assertThat(failWith(claimOne(r), AttemptOutcome.FAILED, 1).job().status())
                .isEqualTo(JobStatus.PENDING);
        assertThat(failWith(claimOne(r), AttemptOutcome.LOST, null).job().status())
                .isEqualTo(JobStatus.FAILED);
        assertThat(store.runs().retryPolicy(old.id()).orElseThrow().retryWhenRunnerLost())
                .isFalse();
        // A job stored before V26 (retry_on NULL) reads as the mapping of its retry_when_runner_lost.
        assertThat(RetryPolicy.fromColumns(3, 5, true, null, null)).isEqualTo(new RetryPolicy(3, 5, true));
    }

    private Transition failWith(Leased attempt, AttemptOutcome outcome, Integer exitCode) {
        var code = outcome == AttemptOutcome.LOST ? null : FailureCode.EXIT_CODE;
        return store.transitions()
                .fail(
                        attempt.uuid(),
                        attempt.lease(),
                        "failed",
                        outcome,
                        tick(),
                        null,
                        new AttemptFailure(code, exitCode));
    }
}
