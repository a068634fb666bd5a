package dev.baton.dispatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.TestDatabases;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three Baton server nodes on one PostgreSQL schema (issue 14), on the real clock. Node A is a
 * separate JVM started from the test classpath, so that it can be killed with SIGKILL (no
 * shutdown hook, no last write); nodes B and C run in this JVM. Runners speak the real protocol
 * over real WebSockets; jobs are submitted and canceled through the REST API of a node other
 * than the runner's. Timeouts are short (heartbeat 3 s, node 4 s) so node loss is seen in
 * seconds; the waits allow for a loaded machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("postgres")
class ClusterTest {
    static final String ADMIN = "cluster-test-admin-token-0123456789";
    static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
    static final Duration NODE_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dataDir;

    String databaseUrl;
    Store store;
    Process nodeA;
    int portA;
    BatonServer nodeB;
    BatonServer nodeC;
    Spec spec;
    Project project;
    final List<TestRunner> connections = new CopyOnWriteArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();
    private final AtomicInteger names = new AtomicInteger();

    /** The config every node of this test runs with (also read by {@link ClusterNodeMain} in node A's JVM). */
    static ServerConfig nodeConfig(
            String databaseUrl,
            Path dataDir,
            String nodeId,
            String admin,
            Duration heartbeatTimeout,
            Duration nodeTimeout) {
        return ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .databaseUrl(databaseUrl)
                .requestBodyMaxBytes(1 << 20)
                .adminToken(admin)
                .heartbeatTimeout(heartbeatTimeout)
                .maxRequeues(5)
                .heartbeatFlushInterval(Duration.ofMillis(500))
                .nodeId(nodeId)
                .nodeTimeout(nodeTimeout)
                .build();
    }

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping the cluster test");
        databaseUrl = TestDatabases.freshPostgresSchema();
        store = StoreFactory.open(databaseUrl, dataDir);
        Instant now = Instant.now();
        Organization org =
                store.organizations().createOrganization("Cluster", Slug.of("cluster"), PlanTier.ENTERPRISE, now);
        project = store.organizations().createProject(org.id(), "Cluster", Slug.of("cluster-project"), now);
        spec = store.specs()
                .createSpec("small", Slug.of("small"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, now);
        nodeA = startChild("node-a");
        portA = awaitPort(nodeA);
        nodeB = ServerAssembly.builder(
                        nodeConfig(databaseUrl, dataDir, "node-b", ADMIN, HEARTBEAT_TIMEOUT, NODE_TIMEOUT),
                        Clock.systemUTC())
                .start();
        nodeC = ServerAssembly.builder(
                        nodeConfig(databaseUrl, dataDir, "node-c", ADMIN, HEARTBEAT_TIMEOUT, NODE_TIMEOUT),
                        Clock.systemUTC())
                .start();
    }

    @AfterAll
    void stop() {
        connections.forEach(TestRunner::crash);
        if (nodeA != null) nodeA.destroyForcibly();
        if (nodeC != null) nodeC.close();
        if (nodeB != null) nodeB.close();
        if (store != null) store.close();
    }

    private Process startChild(String nodeId) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Path log = dataDir.resolve(nodeId + ".log");
        return new ProcessBuilder(
                        java,
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        ClusterNodeMain.class.getName(),
                        databaseUrl,
                        dataDir.toString(),
                        nodeId,
                        ADMIN,
                        Long.toString(HEARTBEAT_TIMEOUT.toMillis()),
                        Long.toString(NODE_TIMEOUT.toMillis()))
                .redirectError(log.toFile())
                .start();
    }

    private static int awaitPort(Process p) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith("PORT "))
                return Integer.parseInt(line.substring(5).strip());
        }
        throw new IllegalStateException("node A exited before listening (exit " + p.waitFor() + ")");
    }

    // ---- the scenarios ------------------------------------------------------------------------------

    @Test
    @Order(1)
    void aJobSubmittedOnOneNodeReachesARunnerWaitingOnAnother() {
        TestRunner runner = connect(portB(), newRunner());
        waitFor(runner, 30);
        JobUuid job = submit(portA);
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid()).isEqualTo(job);
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        complete(runner, claimed);
        assertThat(store.runs().findJob(job).orElseThrow().status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        // Cluster-wide figures come from the store: every node reports the three nodes.
        for (int port : new int[] {portA, portB(), portC()}) {
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(get(port, "/metrics").body()).contains("baton_cluster_nodes_alive 3.0"));
        }
    }

    @Test
    @Order(2)
    void aCancelSentToAThirdNodeReachesTheRunner() {
        TestRunner runner = connect(portB(), newRunner());
        waitFor(runner, 30);
        JobUuid job = submit(portA);
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        HttpResponse<String> canceled =
                post(portC(), "/v0/projects/" + project.slug() + "/jobs/" + job + "/cancel", Map.of());
        assertThat(canceled.statusCode()).isEqualTo(200);
        ServerMessage.Cancel cancel = runner.expect(ServerMessage.Cancel.class);
        assertThat(cancel.job()).isEqualTo(job);
        assertThat(cancel.reason()).isEqualTo("canceled_by_user");
        runner.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of()));
        runner.expect(ServerMessage.Ack.class);
        assertThat(store.runs().findJob(job).orElseThrow().status()).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    @Order(3)
    void aDrainSentToAnotherNodeReachesTheRunner() throws Exception {
        Handle h = newRunner();
        TestRunner runner = connect(portB(), h);
        HttpResponse<String> drained =
                post(portC(), "/v0/runners/" + h.runner().slug() + "/drain", Map.of("state", "quiet"));
        assertThat(drained.statusCode()).as(drained.body()).isEqualTo(202);
        assertThat(JSON.readTree(drained.body()).path("node").asText()).isEqualTo("node-b");
        assertThat(runner.expect(ServerMessage.Drain.class).state().wireName()).isEqualTo("quiet");
        // A directive must fit a notification (< 8000 bytes): an overlong update is refused, nothing sent.
        HttpResponse<String> tooLong = post(
                portC(),
                "/v0/runners/" + h.runner().slug() + "/update",
                Map.of(
                        "version",
                        "1.0",
                        "url",
                        "https://example.invalid/" + "x".repeat(9000),
                        "checksum",
                        "c".repeat(64)));
        assertThat(tooLong.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(tooLong.body()).path("field").asText()).isEqualTo("url");
        runner.send(new RunnerMessage.Heartbeat(null, null)); // alive within the short heartbeat timeout of this test
        runner.expect(ServerMessage.Ack.class);
        HttpResponse<String> update = post(
                portC(),
                "/v0/runners/" + h.runner().slug() + "/update",
                Map.of("version", "1.0", "url", "https://example.invalid/baton.jar", "checksum", "c".repeat(64)));
        assertThat(update.statusCode()).isEqualTo(202);
        assertThat(runner.expect(ServerMessage.Update.class).version()).isEqualTo("1.0");
    }

    @Test
    @Order(4)
    void aRunnerThatReconnectsToAnotherNodeResumesItsJob() {
        Handle h = newRunner();
        TestRunner first = connect(portB(), h);
        waitFor(first, 30);
        JobUuid job = submit(portC());
        ClaimedJob claimed = first.expect(ServerMessage.Job.class).job();
        first.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        first.expect(ServerMessage.Ack.class);
        first.crash();
        await().atMost(WAIT)
                .until(() -> store.nodes().runnerNode(h.runner().id()).isEmpty());

        TestRunner again = connect(portC(), h);
        again.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease())); // resent on reconnect: liveness only
        again.expect(ServerMessage.Ack.class);
        assertThat(store.nodes().runnerNode(h.runner().id())).contains("node-c");
        complete(again, claimed);
        complete(again, claimed); // the outbox resends; acknowledged again, applied once
        Job done = store.runs().findJob(job).orElseThrow();
        assertThat(done.status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        assertThat(done.attempt()).isEqualTo(1);
    }

    @Test
    @Order(5)
    void thirtyRunnersOnThreeNodesClaimFiveHundredJobsEachExactlyOnce() throws Exception {
        int jobs = 500;
        int[] ports = {portA, portB(), portC()};
        Map<JobUuid, AtomicInteger> handedOut = new ConcurrentHashMap<>();
        AtomicInteger done = new AtomicInteger();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> runners = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            TestRunner runner = connect(ports[i % 3], newRunner());
            runners.add(Thread.ofPlatform().start(() -> {
                try {
                    while (done.get() < jobs) {
                        runner.send(new RunnerMessage.Ready(1, "linux", "x86_64", "test", 1));
                        ServerMessage m = runner.next();
                        if (!(m instanceof ServerMessage.Job j)) continue; // no_job: ask again
                        handedOut
                                .computeIfAbsent(j.job().uuid(), k -> new AtomicInteger())
                                .incrementAndGet();
                        runner.send(new RunnerMessage.Running(
                                j.job().uuid(), j.job().lease()));
                        runner.expect(ServerMessage.Ack.class);
                        complete(runner, j.job());
                        done.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        List<JobUuid> submitted = new ArrayList<>();
        for (int i = 0; i < jobs; i++) submitted.add(submit(ports[i % 3]));
        for (Thread t : runners) t.join(TimeUnit.MINUTES.toMillis(3));
        assertThat(failures).isEmpty();
        assertThat(done.get()).isEqualTo(jobs);
        assertThat(handedOut.keySet()).containsExactlyInAnyOrderElementsOf(submitted);
        assertThat(handedOut.values())
                .allSatisfy(n ->
                        assertThat(n.get()).as("times one job was handed out").isEqualTo(1));
        for (JobUuid uuid : submitted) {
            Job job = store.runs().findJob(uuid).orElseThrow();
            assertThat(job.attempt()).as("claims of job " + uuid).isEqualTo(1);
            assertThat(store.runs().attempts(job.id())).hasSize(1);
        }
    }

    @Test
    @Order(6)
    void theJobsOfAKilledNodesRunnersAreRequeuedByTheOthers() throws Exception {
        Runner held = newRunnerRecord();
        TestRunner onA = connect(portA, handle(held));
        waitFor(onA, 30);
        JobUuid job = submit(portB());
        ClaimedJob claimed = onA.expect(ServerMessage.Job.class).job();
        onA.send(new RunnerMessage.Preparing(claimed.uuid(), claimed.lease(), "pulling"));
        onA.expect(ServerMessage.Ack.class);
        assertThat(store.nodes().runnerNode(held.id())).contains("node-a");

        // SIGKILL: no close frames, no stop mark in the store, no last heartbeat.
        ProcessHandle a = nodeA.toHandle();
        new ProcessBuilder("kill", "-KILL", Long.toString(a.pid())).start().waitFor();
        assertThat(nodeA.waitFor(30, TimeUnit.SECONDS)).isTrue();

        TestRunner elsewhere = connect(portC(), newRunner());
        waitFor(elsewhere, 60);
        // A live runner speaks within the heartbeat timeout while it waits; the acks are skipped below.
        Thread beating = Thread.ofVirtual().start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(HEARTBEAT_TIMEOUT.toMillis() / 3);
                    elsewhere.send(new RunnerMessage.Heartbeat(null, null));
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        await().atMost(WAIT).untilAsserted(() -> {
            Job now = store.runs().findJob(job).orElseThrow();
            assertThat(now.requeues()).as("requeued after node A died").isEqualTo(1);
        });
        // Requeued by B or C once A's heartbeats stopped: A's runner's attempt ended lost before start.
        Job after = store.runs().findJob(job).orElseThrow();
        assertThat(store.runs().attempts(after.id()).getFirst().outcome().name())
                .isEqualTo("LOST_BEFORE_START");
        assertThat(store.nodes().listNodes()).anySatisfy(n -> {
            assertThat(n.id()).isEqualTo("node-a");
            assertThat(n.stopped()).as("found dead").isNotNull();
        });
        // ... and a runner waiting on another node gets it.
        ServerMessage m = elsewhere.next();
        while (m instanceof ServerMessage.Ack) m = elsewhere.next();
        beating.interrupt();
        assertThat(m).isInstanceOf(ServerMessage.Job.class);
        ClaimedJob again = ((ServerMessage.Job) m).job();
        assertThat(again.uuid()).isEqualTo(job);
        assertThat(again.attempt()).isEqualTo(2);
        HttpResponse<String> nodes = get(portB(), "/v0/nodes");
        assertThat(nodes.statusCode()).isEqualTo(200);
        JsonNode list = JSON.readTree(nodes.body()).path("nodes");
        assertThat(list.findValuesAsText("id")).contains("node-a", "node-b", "node-c");
        for (JsonNode n : list)
            assertThat(n.path("alive").asBoolean())
                    .isEqualTo(!n.path("id").asText().equals("node-a"));
    }

    // ---- helpers ------------------------------------------------------------------------------------

    int portB() {
        return nodeB.port();
    }

    int portC() {
        return nodeC.port();
    }

    record Handle(Runner runner, String key) {}

    private final Map<Long, String> keys = new ConcurrentHashMap<>();

    Runner newRunnerRecord() {
        RunnerKey key = RunnerKey.generate();
        String name = "runner " + names.incrementAndGet();
        Runner runner = store.runners().createRunner(name, Slug.fromName(name), key.hash(), Instant.now());
        store.specs().addRunnerSpec(runner.id(), spec.id());
        keys.put(runner.id(), key.reveal());
        return runner;
    }

    Handle newRunner() {
        return handle(newRunnerRecord());
    }

    Handle handle(Runner runner) {
        return new Handle(runner, keys.get(runner.id()));
    }

    TestRunner connect(int port, Handle h) {
        TestRunner r = TestRunner.connect(
                URI.create(
                        "ws://127.0.0.1:" + port + "/v0/runners/" + h.runner().slug() + "/channel"),
                h.key());
        r.welcome();
        connections.add(r);
        return r;
    }

    /** Sends ready and waits until the node has taken it (messages are handled in order; the bare heartbeat is acked). */
    static void waitFor(TestRunner runner, int pollTimeout) {
        runner.send(new RunnerMessage.Ready(pollTimeout, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
    }

    static void complete(TestRunner runner, ClaimedJob job) {
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);
    }

    JobUuid submit(int port) {
        HttpResponse<String> r = post(
                port,
                "/v0/run",
                Map.of("project", project.slug().value(), "spec", spec.slug().value(), "cmd", List.of("true")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        try {
            return JobUuid.parse(
                    JSON.readTree(r.body()).path("job").path("uuid").asText());
        } catch (Exception e) {
            throw new IllegalStateException(r.body(), e);
        }
    }

    HttpResponse<String> post(int port, String path, Object body) {
        try {
            return http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .header("Authorization", "Bearer " + ADMIN)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> get(int port, String path) {
        try {
            return http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                            .header("Authorization", "Bearer " + ADMIN)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
