package dev.baton.server.testing;

import dev.baton.core.config.ServerConfig;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.channel.RunnerChannel;
import dev.baton.dispatch.output.AttemptOutputs;
import dev.baton.dispatch.output.DirectoryOutputStore;
import dev.baton.dispatch.output.OutputStore;
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
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.token.PullTokens;
import dev.baton.web.http.MetricsRoutes;
import io.javalin.Javalin;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real server side for channel tests: a real store (SQLite file or PostgreSQL schema), the
 * runner channel on a real Jetty on 127.0.0.1, and a test clock for every timeout. Jobs are
 * submitted through the store plus the same JobEvents call the management API makes.
 */
public final class ChannelFixture implements AutoCloseable {
    public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(90);
    public static final Duration ACCEPTANCE_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration GRACE = Duration.ofSeconds(60);
    public static final Duration CANCEL_DEADLINE = Duration.ofSeconds(30);
    public static final long MAX_MESSAGE_BYTES = 64 * 1024;

    public record RunnerHandle(Runner runner, String key) {}

    public final MutableClock clock = MutableClock.startingNow();
    public final Store store;
    public final OutputStore outputs;
    public final ServerConfig config;
    public final Organization organization;
    public final Project project;
    private final AtomicInteger names = new AtomicInteger();
    private RunnerChannel channel;
    private BatonMetrics metrics;
    private Javalin app;

    /** How often dispatch asked the store to claim (a write transaction each time). */
    public final AtomicInteger claims = new AtomicInteger();

    /**
     * A claim for a runner with a gate here stops before reaching the store: it counts
     * {@code entered} down and waits for {@code release} (to hold a dispatch in mid-claim).
     */
    public record ClaimGate(java.util.concurrent.CountDownLatch entered, java.util.concurrent.CountDownLatch release) {
        public ClaimGate() {
            this(new java.util.concurrent.CountDownLatch(1), new java.util.concurrent.CountDownLatch(1));
        }
    }

    public final java.util.Map<Long, ClaimGate> claimGates = new java.util.concurrent.ConcurrentHashMap<>();

    /** How often dispatch asked the store whether anything is pending before a claim (a read each time). */
    public final AtomicInteger pendingReads = new AtomicInteger();

    /**
     * Run once, just before the next {@code Store.fail} reaches the store: what another node does
     * between this node's read of a job and its transition (e.g. cancel it).
     */
    public final java.util.concurrent.atomic.AtomicReference<Runnable> beforeNextFail =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** While set, the background fallback sweep waits at its first store call (see {@link #holdFallbackSweep}). */
    private final java.util.concurrent.atomic.AtomicReference<ClaimGate> sweepHold =
            new java.util.concurrent.atomic.AtomicReference<>();

    public ChannelFixture(String databaseUrl, Path dataDir) {
        this(databaseUrl, dataDir, java.util.function.UnaryOperator.identity());
    }

    /** With {@code tune} applied to the fixture's config (e.g. a quarantine threshold). */
    public ChannelFixture(String databaseUrl, Path dataDir, java.util.function.UnaryOperator<ServerConfig> tune) {
        this.store = countingClaims(
                StoreFactory.open(databaseUrl, dataDir), claims, claimGates, pendingReads, sweepHold, beforeNextFail);
        // As the server wires it: small output on the attempt's row, the rest in the storage directory.
        this.outputs = new AttemptOutputs(store, new DirectoryOutputStore(dataDir.resolve("storage")));
        this.config = tune.apply(ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .databaseUrl(databaseUrl)
                .requestBodyMaxBytes(MAX_MESSAGE_BYTES)
                .adminToken("admin")
                .heartbeatTimeout(HEARTBEAT_TIMEOUT)
                .acceptanceTimeout(ACCEPTANCE_TIMEOUT)
                .jobTimeoutGrace(GRACE)
                .cancelDeadline(CANCEL_DEADLINE)
                .maxRequeues(3)
                .build());
        this.organization = store.organizations()
                .createOrganization("Team org", Slug.of("team-org"), PlanTier.TEAM, clock.instant());
        this.project =
                store.organizations().createProject(organization.id(), "Bench", Slug.of("bench"), clock.instant());
        startServer();
    }

    /** The real store, with its claim calls counted (a test-only proxy; production wires objects by hand). */
    private static Store countingClaims(
            Store real,
            AtomicInteger claims,
            java.util.Map<Long, ClaimGate> gates,
            AtomicInteger pendingReads,
            java.util.concurrent.atomic.AtomicReference<ClaimGate> sweepHold,
            java.util.concurrent.atomic.AtomicReference<Runnable> beforeNextFail) {
        return StoreCalls.intercept(real, (target, method, args) -> {
            if (method.getName().equals("hasPendingFor")) pendingReads.incrementAndGet();
            if (method.getName().equals("fail")) {
                Runnable meanwhile = beforeNextFail.getAndSet(null);
                if (meanwhile != null) meanwhile.run();
            }
            ClaimGate hold = sweepHold.get();
            // expireNodes is the first store call of every sweep; only the background loop's thread waits.
            if (hold != null
                    && method.getName().equals("expireNodes")
                    && Thread.currentThread().getName().equals("baton-deadline-sweep")) {
                hold.entered().countDown();
                hold.release().await();
            }
            // Dispatch claims for all the waiters a pump serves in one call (claimEach).
            if (method.getName().equals("claimEach")) {
                claims.incrementAndGet();
                List<Long> runners = ((List<?>) args[0])
                        .stream()
                                .map(r -> ((dev.baton.store.ClaimRequest) r).runnerId())
                                .toList();
                for (Long runner : runners) {
                    ClaimGate gate = gates.get(runner);
                    if (gate != null) {
                        gate.entered().countDown();
                        gate.release().await();
                    }
                }
            }
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    /**
     * Holds the background fallback sweep (which also makes dispatch forget what it knows of
     * pending jobs and ask the store again) until the returned handle is closed, so that a test can
     * count store reads without it; returns once the sweep waits.
     */
    public AutoCloseable holdFallbackSweep() throws InterruptedException {
        ClaimGate hold = new ClaimGate();
        sweepHold.set(hold);
        if (!hold.entered().await(30, java.util.concurrent.TimeUnit.SECONDS))
            throw new IllegalStateException("the fallback sweep did not run");
        return () -> {
            sweepHold.set(null);
            hold.release().countDown();
        };
    }

    /** Starts (or after {@link #stopServer()}, restarts) the server side on the same store. */
    public void startServer() {
        metrics = new BatonMetrics();
        // Stand-in for the registry's JWT issuer, which the registry tests cover; here only its presence matters.
        PullTokens tokens = (pull, now) -> "pull-token-for-" + pull.project();
        channel = new RunnerChannel(store, config, clock, tokens, outputs, metrics);
        channel.start();
        app = Javalin.create(cfg -> {
                    channel.routes().addRoutes(cfg);
                    new MetricsRoutes(metrics).addRoutes(cfg);
                })
                .start("127.0.0.1", 0);
    }

    /** Graceful shutdown of the server side; the store stays. */
    public void stopServer() {
        channel.close();
        app.stop();
    }

    public RunnerChannel channel() {
        return channel;
    }

    public BatonMetrics metrics() {
        return metrics;
    }

    public URI channelUri(Runner runner) {
        return URI.create("ws://127.0.0.1:" + app.port() + "/v0/runners/" + runner.slug() + "/channel");
    }

    public URI http(String path) {
        return URI.create("http://127.0.0.1:" + app.port() + path);
    }

    public Spec spec(String name) {
        return store.specs()
                .createSpec(
                        name, Slug.fromName(name), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, clock.instant());
    }

    public RunnerHandle runner(Spec... specs) {
        RunnerKey key = RunnerKey.generate();
        String name = "runner " + names.incrementAndGet();
        Runner runner = store.runners().createRunner(name, Slug.fromName(name), key.hash(), clock.instant());
        for (Spec s : specs) store.specs().addRunnerSpec(runner.id(), s.id());
        return new RunnerHandle(runner, key.reveal());
    }

    public TestRunner connect(RunnerHandle handle) {
        return TestRunner.connect(channelUri(handle.runner()), handle.key());
    }

    public Job submit(Spec spec) {
        return submit(spec, organization, "192.0.2.1", 600, List.of());
    }

    public Job submit(Spec spec, Organization org, String sourceIp, int timeoutSeconds, List<String> filePaths) {
        return submit(spec, org, sourceIp, timeoutSeconds, filePaths, RetryPolicy.NONE);
    }

    public Job submit(Spec spec, RetryPolicy retry) {
        return submit(spec, organization, "192.0.2.1", 600, List.of(), retry);
    }

    public Job submit(
            Spec spec,
            Organization org,
            String sourceIp,
            int timeoutSeconds,
            List<String> filePaths,
            RetryPolicy retry) {
        return submit(spec, org, sourceIp, timeoutSeconds, filePaths, retry, null);
    }

    /** A job that fails with queue_timeout when still pending {@code queueTimeoutSeconds} after submission. */
    public Job submitWithQueueTimeout(Spec spec, int queueTimeoutSeconds) {
        return submit(spec, organization, "192.0.2.1", 600, List.of(), RetryPolicy.NONE, queueTimeoutSeconds);
    }

    public Job submit(
            Spec spec,
            Organization org,
            String sourceIp,
            int timeoutSeconds,
            List<String> filePaths,
            RetryPolicy retry,
            Integer queueTimeoutSeconds) {
        Project p = org.id() == organization.id()
                ? project
                : store.organizations()
                        .createProject(
                                org.id(),
                                "p " + names.incrementAndGet(),
                                Slug.of("p-" + names.incrementAndGet()),
                                clock.instant());
        Instant now = clock.instant();
        JobConfig config = new JobConfig(
                "http://127.0.0.1",
                p.uuid(),
                ImageDigest.of("sha256:" + "a".repeat(64)),
                null,
                List.of("bench"),
                Map.of(),
                JobTimeout.of(timeoutSeconds),
                filePaths.isEmpty() ? null : filePaths,
                1);
        Job job = store.runs()
                .createRun(
                        new NewReport(p.id(), "main", "localhost", "json", now, now, null),
                        new NewJob(
                                spec.id(),
                                sourceIp,
                                config,
                                timeoutSeconds,
                                org.plan().priority(),
                                retry,
                                queueTimeoutSeconds),
                        org.id(),
                        now)
                .job();
        channel.jobSubmitted(job);
        return job;
    }

    /**
     * Submits a job of the fixture's organization as {@code POST /v0/run} does, through the
     * channel's {@code submit} (dispatch in one commit when a runner of the spec waits, decision
     * 0063); {@code organizationId} other than the fixture's makes the commit fail (no such organization).
     */
    public Job submitInOneCommit(Spec spec, long organizationId) {
        return submitInOneCommit(spec, organizationId, ImageDigest.of("sha256:" + "a".repeat(64)));
    }

    /** As {@link #submitInOneCommit(Spec, long)}, the job running {@code image}. */
    public Job submitInOneCommit(Spec spec, long organizationId, ImageDigest image) {
        Instant now = clock.instant();
        JobConfig config = new JobConfig(
                "http://127.0.0.1",
                project.uuid(),
                image,
                null,
                List.of("bench"),
                Map.of(),
                JobTimeout.of(600),
                null,
                1);
        return channel.submit(
                        store.runs(),
                        new NewReport(project.id(), "main", "localhost", "json", now, now, null),
                        new NewJob(
                                spec.id(),
                                "192.0.2.1",
                                config,
                                600,
                                organization.plan().priority(),
                                RetryPolicy.NONE),
                        organizationId,
                        now,
                        run -> {})
                .job();
    }

    /**
     * A pending job that dispatch is not told about (as if committed by another node without a notice): found by the next pump
     * that asks the store, at the latest the fallback sweep's (docs/decisions/0020-pending-knowledge.md).
     */
    public Job createPendingUnannounced(Spec spec) {
        Instant now = clock.instant();
        JobConfig config = new JobConfig(
                "http://127.0.0.1",
                project.uuid(),
                ImageDigest.of("sha256:" + "a".repeat(64)),
                null,
                List.of("bench"),
                Map.of(),
                JobTimeout.of(600),
                null,
                1);
        return store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "localhost", "json", now, now, null),
                        new NewJob(
                                spec.id(),
                                "192.0.2.1",
                                config,
                                600,
                                organization.plan().priority(),
                                RetryPolicy.NONE),
                        organization.id(),
                        now)
                .job();
    }

    /** A job of the fixture's organization that requires and prefers runner labels (docs/scheduling.md). */
    public Job submit(Spec spec, dev.baton.store.JobLabels labels) {
        Instant now = clock.instant();
        JobConfig config = new JobConfig(
                "http://127.0.0.1",
                project.uuid(),
                ImageDigest.of("sha256:" + "a".repeat(64)),
                null,
                List.of("bench"),
                Map.of(),
                JobTimeout.of(600),
                null,
                1);
        Job job = store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "localhost", "json", now, now, null),
                        new NewJob(
                                spec.id(),
                                "192.0.2.1",
                                config,
                                600,
                                organization.plan().priority(),
                                RetryPolicy.NONE,
                                null,
                                null,
                                labels),
                        organization.id(),
                        now)
                .job();
        channel.jobSubmitted(job);
        return job;
    }

    /** A job of the fixture's organization that runs {@code image} (image affinity, docs/scheduling.md). */
    public Job submit(Spec spec, ImageDigest image) {
        Instant now = clock.instant();
        JobConfig config = new JobConfig(
                "http://127.0.0.1",
                project.uuid(),
                image,
                null,
                List.of("bench"),
                Map.of(),
                JobTimeout.of(600),
                null,
                1);
        Job job = store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "localhost", "json", now, now, null),
                        new NewJob(
                                spec.id(),
                                "192.0.2.1",
                                config,
                                600,
                                organization.plan().priority(),
                                RetryPolicy.NONE,
                                null),
                        organization.id(),
                        now)
                .job();
        channel.jobSubmitted(job);
        return job;
    }

    /** A canary job for quarantined runner {@code runnerId} (docs/scheduling.md, "Canary release"). */
    public Job submitCanary(Spec spec, long runnerId) {
        Instant now = clock.instant();
        JobConfig config = new JobConfig(
                "http://127.0.0.1",
                project.uuid(),
                ImageDigest.of("sha256:" + "c".repeat(64)),
                null,
                List.of("canary"),
                Map.of(),
                JobTimeout.of(600),
                null,
                1);
        Job job = store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "localhost", "json", now, now, null),
                        new NewJob(
                                spec.id(),
                                "192.0.2.1",
                                config,
                                600,
                                organization.plan().priority(),
                                RetryPolicy.NONE,
                                null,
                                null,
                                null,
                                runnerId),
                        organization.id(),
                        now)
                .job();
        channel.jobSubmitted(job);
        return job;
    }

    public Organization organization(PlanTier plan) {
        int n = names.incrementAndGet();
        return store.organizations().createOrganization("org " + n, Slug.of("org-" + n), plan, clock.instant());
    }

    /** What the management API does for a user cancel. */
    public Job cancel(Job job) {
        Job before = job(job);
        Job after = store.transitions()
                .cancel(job.uuid(), null, "canceled by user", clock.instant())
                .job();
        channel.jobCanceled(before, after);
        return after;
    }

    public Job job(Job job) {
        return store.runs().findJob(job.uuid()).orElseThrow();
    }

    /** Moves the test clock and fires whatever became due. */
    public void advance(Duration by) {
        clock.advance(by);
        channel.runDueDeadlines();
    }

    @Override
    public void close() {
        try {
            stopServer();
        } finally {
            store.close();
        }
    }
}
