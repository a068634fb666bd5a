package dev.baton.dispatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.dispatch.logs.LogEntry;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.TestDatabases;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.token.JobPull;
import dev.baton.store.token.PullScope;
import dev.baton.store.token.RegistryTokens;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live logs and the console's change feed across nodes (docs/decisions/0016-cross-node-live.md):
 * three server nodes in this JVM on one PostgreSQL schema (sharing the data directory, hence the
 * signing key and the blob store, as a cluster must), on the real clock. Runners speak the real
 * protocol over real WebSockets to one node; readers use the REST API and the console of another,
 * over real HTTP, which fetches the log from the runner's node over real HTTP in turn.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("postgres")
class CrossNodeLiveTest {
    static final String ADMIN = "cross-node-test-admin-token-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path dataDir;

    String databaseUrl;
    Store store;
    BatonServer nodeA;
    BatonServer nodeB;
    BatonServer nodeC;
    Spec spec;
    /** A spec no runner serves: the console test's jobs wait there and are never handed to another test's runner. */
    Spec unserved;

    Project project;
    final List<TestRunner> connections = new CopyOnWriteArrayList<>();
    final List<AutoCloseable> streams = new CopyOnWriteArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        databaseUrl = TestDatabases.freshPostgresSchema();
        store = StoreFactory.open(databaseUrl, dataDir);
        Instant now = Instant.now();
        Organization org =
                store.organizations().createOrganization("Cross", Slug.of("cross"), PlanTier.ENTERPRISE, now);
        project = store.organizations().createProject(org.id(), "Cross", Slug.of("cross-project"), now);
        spec = store.specs()
                .createSpec("small", Slug.of("small"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, now);
        unserved = store.specs()
                .createSpec("unserved", Slug.of("unserved"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, now);
        nodeA = node("node-a");
        nodeB = node("node-b");
        nodeC = node("node-c");
    }

    private BatonServer node(String id) {
        // Heartbeat timeout 30 s: runners here stay quiet while the readers are checked.
        return ServerAssembly.builder(
                        ClusterTest.nodeConfig(
                                databaseUrl, dataDir, id, ADMIN, Duration.ofSeconds(30), Duration.ofSeconds(30)),
                        Clock.systemUTC())
                .start();
    }

    @AfterAll
    void stop() {
        streams.forEach(s -> {
            try {
                s.close();
            } catch (Exception e) {
                // already gone
            }
        });
        connections.forEach(TestRunner::crash);
        for (BatonServer n : new BatonServer[] {nodeC, nodeB, nodeA}) if (n != null) n.close();
        if (store != null) store.close();
        http.shutdownNow();
    }

    // ---- live logs ----------------------------------------------------------------------------------

    @Test
    void aFollowerOnAnotherNodeGetsTheLiveEntriesInOrderAndResumesAfterTheLastOne() throws Exception {
        TestRunner runner = connect(nodeA, newRunner());
        ClaimedJob job = runningJob(runner, nodeB);
        Log log = new Log(runner, job);
        log.send("warming up\n");
        log.send("iteration 1: 4.2 ms\n");

        SseLines follower = follow(nodeB, job.uuid(), null);
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("1", "log", entry(1, "warming up\n")));
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("2", "log", entry(2, "iteration 1: 4.2 ms\n")));
        // Entries the runner sends now reach the follower on the other node while the job runs.
        log.send("iteration 2: 4.1 ms\n");
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("3", "log", entry(3, "iteration 2: 4.1 ms\n")));
        assertThat(store.runs().findJob(job.uuid()).orElseThrow().status().wireName())
                .isEqualTo("running");
        follower.close();

        // Away for two entries; back through the third node with Last-Event-ID: exactly the two, then the live ones.
        log.send("iteration 3: 4.0 ms\n");
        log.send("iteration 4: 4.3 ms\n");
        SseLines resumed = follow(nodeC, job.uuid(), "3");
        assertThat(untimed(resumed.nextEvent())).isEqualTo(new Event("4", "log", entry(4, "iteration 3: 4.0 ms\n")));
        assertThat(untimed(resumed.nextEvent())).isEqualTo(new Event("5", "log", entry(5, "iteration 4: 4.3 ms\n")));
        log.send("cooling down\n");
        assertThat(untimed(resumed.nextEvent())).isEqualTo(new Event("6", "log", entry(6, "cooling down\n")));

        // A page on the reader's node is the runner's node's page, seq for seq.
        JsonNode page = get(nodeB, logsPath(job.uuid()) + "?after=4");
        assertThat(page.path("status").asText()).isEqualTo("running");
        assertThat(page.path("complete").asBoolean()).isFalse();
        assertThat(page.path("next").asLong()).isEqualTo(6);
        assertThat(page.path("entries").findValuesAsText("text"))
                .containsExactly("iteration 4: 4.3 ms\n", "cooling down\n");

        // The job ends: the output the runner never streamed follows as the next entry, then end, on the other node
        // too.
        String streamed =
                "warming up\niteration 1: 4.2 ms\niteration 2: 4.1 ms\niteration 3: 4.0 ms\niteration 4: 4.3 ms\ncooling down\n";
        complete(runner, job, streamed + "summary: 4.15 ms\n");
        assertThat(untimed(resumed.nextEvent())).isEqualTo(new Event("7", "log", entry(7, "summary: 4.15 ms\n")));
        Event end = resumed.nextEvent();
        assertThat(end.event()).isEqualTo("end");
        assertThat(resumed.nextEvent()).as("the stream closes after end").isNull();

        // Whole, and numbered the same on every node.
        JsonNode onA = get(nodeA, logsPath(job.uuid()));
        for (BatonServer reader : new BatonServer[] {nodeB, nodeC}) {
            JsonNode whole = get(reader, logsPath(job.uuid()));
            assertThat(whole.path("complete").asBoolean()).isTrue();
            assertThat(whole.path("entries")).isEqualTo(onA.path("entries"));
        }
        assertThat(onA.path("entries")).hasSize(7);
    }

    @Test
    void aFollowerThatCameBeforeTheFirstLineWaitsOnTheRunnersNodeForItAndForAnEndWithoutLines() throws Exception {
        // Node e is reached through a proxy that records each request of another node and its answer.
        try (PeerProxy proxy = new PeerProxy()) {
            BatonServer nodeE = ServerAssembly.builder(
                            ClusterTest.nodeConfig(
                                            databaseUrl,
                                            dataDir,
                                            "node-e",
                                            ADMIN,
                                            Duration.ofSeconds(30),
                                            Duration.ofSeconds(30))
                                    .toBuilder()
                                    .advertiseUrl(proxy.url())
                                    .build(),
                            Clock.systemUTC())
                    .start();
            try {
                proxy.target(nodeE.port());
                TestRunner runner = connect(nodeE, newRunner());
                ClaimedJob job = runningJob(runner, nodeB);

                // The follower on node b comes before the job's first line, and node b asks node e.
                SseLines follower = follow(nodeB, job.uuid(), null);
                await().atMost(WAIT).until(() -> proxy.asked(job.uuid()) > 0);
                new Log(runner, job).send("first line\n");
                assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("1", "log", entry(1, "first line\n")));
                // Node e held the log from the hand-out: every request waited there (200), none was
                // turned away with log_not_held (which leaves node b to poll once a second).
                assertThat(proxy.statuses(job.uuid())).isNotEmpty().containsOnly(200);
                complete(runner, job, "first line\n");
                assertThat(follower.nextEvent().event()).isEqualTo("end");
                assertThat(follower.nextEvent())
                        .as("the stream closes after end")
                        .isNull();

                // A job that ends without a single line, neither live nor stored: the follower that waits on node e
                // sees the end.
                ClaimedJob quiet = runningJob(runner, nodeB);
                SseLines waiting = follow(nodeB, quiet.uuid(), null);
                await().atMost(WAIT).until(() -> proxy.asked(quiet.uuid()) > 0);
                complete(runner, quiet, "");
                assertThat(waiting.nextEvent().event()).isEqualTo("end");
                assertThat(waiting.nextEvent()).isNull();
                assertThat(proxy.statuses(quiet.uuid())).isNotEmpty().containsOnly(200);
                JsonNode whole = get(nodeC, logsPath(quiet.uuid()));
                assertThat(whole.path("complete").asBoolean()).isTrue();
                assertThat(whole.path("entries")).isEmpty();
                runner.crash();
            } finally {
                nodeE.close();
            }
        }
    }

    @Test
    void aFollowerSeesTheEndWhenTheRunnerMovedToAnotherNodeAndFinishedThere() throws Exception {
        Handle h = newRunner();
        TestRunner runner = connect(nodeA, h);
        ClaimedJob job = runningJob(runner, nodeA);
        Log log = new Log(runner, job);
        log.send("before the move\n");
        SseLines follower = follow(nodeB, job.uuid(), null);
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("1", "log", entry(1, "before the move\n")));

        // The runner's connection to node a breaks; it reconnects to node c and finishes there.
        runner.crash();
        await().atMost(WAIT)
                .until(() -> store.nodes().runnerNode(h.runner().id()).isEmpty());
        TestRunner again = connect(nodeC, h);
        again.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        again.expect(ServerMessage.Ack.class);
        complete(again, job, "before the move\nafter the move\n");

        // Node a still numbers the log (the follower keeps its seqs) and sees that no entry can come any more.
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("2", "log", entry(2, "after the move\n")));
        assertThat(follower.nextEvent().event()).isEqualTo("end");
    }

    @Test
    void aFollowerKeepsTheNumberingItHadWhenTheRunnerMovesToTheFollowersOwnNode() throws Exception {
        Handle h = newRunner();
        TestRunner runner = connect(nodeA, h);
        ClaimedJob job = runningJob(runner, nodeA);
        new Log(runner, job).send("numbered by node a\n");
        SseLines follower = follow(nodeB, job.uuid(), null);
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("1", "log", entry(1, "numbered by node a\n")));

        // The runner comes back on node b, the follower's own node, which now has the attempt but not node a's entries.
        runner.crash();
        await().atMost(WAIT)
                .until(() -> store.nodes().runnerNode(h.runner().id()).isEmpty());
        TestRunner again = connect(nodeB, h);
        again.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        again.expect(ServerMessage.Ack.class);
        // It streams on (seq 2: node b never saw seq 1, so it shows none of this attempt live).
        Log resumed = new Log(again, job);
        resumed.seq = 1;
        resumed.send("the rest\n");
        complete(again, job, "numbered by node a\nthe rest\n");

        // Node b keeps asking node a, which numbered the log: the rest follows seq 1, nothing is skipped or repeated.
        assertThat(untimed(follower.nextEvent())).isEqualTo(new Event("2", "log", entry(2, "the rest\n")));
        assertThat(follower.nextEvent().event()).isEqualTo("end");
        JsonNode onB = get(nodeB, logsPath(job.uuid()));
        assertThat(onB.path("entries").findValuesAsText("text")).containsExactly("numbered by node a\n", "the rest\n");
    }

    @Test
    void onlyANodeTokenForTheJobReadsAnotherNodesLog() throws Exception {
        TestRunner runner = connect(nodeA, newRunner());
        ClaimedJob job = runningJob(runner, nodeA);
        new Log(runner, job).send("secret-ish output\n");
        String path = "/cluster/jobs/" + job.uuid() + "/logs";
        RegistryTokens keys = RegistryTokens.open(dataDir, Duration.ofMinutes(10));
        Instant now = Instant.now();

        assertThat(raw(nodeA, path, null).statusCode()).isEqualTo(401);
        assertThat(raw(nodeA, path, ADMIN).statusCode())
                .as("the admin token is no node token")
                .isEqualTo(401);
        String pull = keys.issue(
                new JobPull(
                        RunnerUuid.random(),
                        project.uuid(),
                        new PullScope(job.uuid(), 1, ImageDigest.of("sha256:" + "a".repeat(64))),
                        now.plusSeconds(3600)),
                now);
        assertThat(raw(nodeA, path, pull).statusCode())
                .as("a registry token is no node token")
                .isEqualTo(401);
        assertThat(raw(nodeA, path, keys.issue("node-b", JobUuid.random(), now)).statusCode())
                .as("a token for another job")
                .isEqualTo(401);
        assertThat(keys.verify(keys.issue("node-b", job.uuid(), now), now))
                .as("and a node token is no registry token")
                .isEmpty();

        // Each node advertised where it listens (GET /v0/nodes shows it).
        JsonNode nodes = get(nodeB, "/v0/nodes").path("nodes");
        for (JsonNode n : nodes) {
            if (n.path("id").asText().equals("node-a"))
                assertThat(n.path("advertise_url").asText()).isEqualTo("http://127.0.0.1:" + nodeA.port());
        }
        assertThat(nodes.findValuesAsText("id")).contains("node-a", "node-b", "node-c");

        HttpResponse<String> held = raw(nodeA, path, keys.issue("node-b", job.uuid(), now));
        assertThat(held.statusCode()).isEqualTo(200);
        assertThat(Wire.mapper().readTree(held.body()).path("entries").findValuesAsText("text"))
                .containsExactly("secret-ish output\n");
        // A node that never had the log live does not answer for it: the reader's node cuts the stored output itself.
        HttpResponse<String> notHeld = raw(nodeB, path, keys.issue("node-c", job.uuid(), now));
        assertThat(notHeld.statusCode()).isEqualTo(404);
        assertThat(Wire.mapper().readTree(notHeld.body()).path("code").asText()).isEqualTo("log_not_held");
        complete(runner, job, "secret-ish output\n");
    }

    @Test
    void whenTheRunnersNodeIsGoneTheReaderGetsTheWholeLogOnceTheJobEnded() throws Exception {
        BatonServer doomed = node("node-d");
        Handle h = newRunner();
        TestRunner runner = connect(doomed, h);
        ClaimedJob job = runningJob(runner, nodeB);
        new Log(runner, job).send("only on node d\n");
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(
                                get(nodeB, logsPath(job.uuid())).path("entries").findValuesAsText("text"))
                        .containsExactly("only on node d\n"));

        // Node d stops; its runner comes back on node a and finishes there without streaming again.
        runner.crash();
        doomed.close();
        TestRunner again = connect(nodeA, h);
        again.send(new RunnerMessage.Running(job.uuid(), job.lease()));
        again.expect(ServerMessage.Ack.class);
        // While it runs, node b has nobody to ask: no entries, as before live logs crossed nodes.
        JsonNode running = get(nodeB, logsPath(job.uuid()));
        assertThat(running.path("entries")).isEmpty();
        assertThat(running.path("complete").asBoolean()).isFalse();
        complete(again, job, "only on node d\nand the rest\n");
        JsonNode whole = get(nodeB, logsPath(job.uuid()));
        assertThat(whole.path("complete").asBoolean()).isTrue();
        assertThat(String.join("", whole.path("entries").findValuesAsText("text")))
                .isEqualTo("only on node d\nand the rest\n");
        assertThat(whole.at("/entries/0/seq").asLong()).isEqualTo(1);
    }

    // ---- console changes ----------------------------------------------------------------------------

    @Test
    void theConsoleOnOneNodeHearsOfJobsAndRunnersOfAnother() throws Exception {
        String session = signIn(nodeB);
        HttpResponse<InputStream> stream = http.send(
                HttpRequest.newBuilder(URI.create(url(nodeB, "/console/events")))
                        .header("Cookie", session)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        SseLines events = new SseLines(stream);
        streams.add(events);

        // Node b says it watches within a flush; until node a heard it, a's changes are not sent: submit until one
        // arrives.
        boolean heard = false;
        for (int i = 0; i < 20 && !heard; i++) {
            JobUuid job = submit(nodeA, unserved);
            heard = events.awaitLine("event: job-" + job, Duration.ofSeconds(2));
        }
        assertThat(heard)
                .as("node b's console heard of a job submitted on node a")
                .isTrue();
        // From then on, every change on node a reaches it.
        JobUuid next = submit(nodeA, unserved);
        assertThat(events.awaitLine("event: job-" + next, WAIT)).isTrue();
        // A runner of no spec (it must not take another test's job) gets ready on node a.
        TestRunner runner = connect(nodeA, newRunner(null));
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        assertThat(events.awaitLine("event: runners", WAIT)).isTrue();
        runner.crash();
    }

    // ---- helpers ------------------------------------------------------------------------------------

    record Handle(Runner runner, String key) {}

    record Event(String id, String event, String data) {}

    /** The event without its entry's receipt time ("at", the holder's clock), which these tests do not fix. */
    static Event untimed(Event e) {
        return e == null ? null : new Event(e.id(), e.event(), e.data().replaceFirst(",\"at\":\"[^\"]*\"", ""));
    }

    /** The data of a log event as the API writes it, without its time. */
    static String entry(long seq, String text) {
        return Wire.encode(new LogEntry(seq, LogStream.STDOUT, 0, text, null));
    }

    /** One job's log as its runner sends it: seq 1, 2, 3 …, each acknowledged by the runner's node. */
    static final class Log {
        final TestRunner runner;
        final ClaimedJob job;
        long seq;

        Log(TestRunner runner, ClaimedJob job) {
            this.runner = runner;
            this.job = job;
        }

        void send(String text) {
            runner.send(RunnerMessage.Log.text(job.uuid(), job.lease(), ++seq, LogStream.STDOUT, 0, text));
            assertThat(runner.expect(ServerMessage.Ack.class).job()).isEqualTo(job.uuid());
        }
    }

    /** A Server-Sent Events response read line by line on its own thread, so that a test can wait with a bound. */
    static final class SseLines implements AutoCloseable {
        private static final String CLOSED = "\u0000closed";
        private final HttpResponse<InputStream> response;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

        SseLines(HttpResponse<InputStream> response) {
            this.response = response;
            Thread.ofVirtual().start(() -> {
                try (BufferedReader r =
                        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) lines.add(line);
                } catch (Exception e) {
                    // closed by the test
                }
                lines.add(CLOSED);
            });
        }

        /** The next event (comments skipped), or null when the stream closed; fails after {@link #WAIT}. */
        Event nextEvent() throws InterruptedException {
            String id = null;
            String event = null;
            String data = null;
            long until = System.nanoTime() + WAIT.toNanos(); // keep-alive comments do not count
            while (true) {
                String line = lines.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(line).as("an event within " + WAIT).isNotNull();
                if (line.equals(CLOSED)) return null;
                if (line.isEmpty()) {
                    if (event != null || data != null) return new Event(id, event, data);
                    continue;
                }
                if (line.startsWith(":")) continue;
                if (line.startsWith("id: ")) id = line.substring(4);
                else if (line.startsWith("event: ")) event = line.substring(7);
                else if (line.startsWith("data: ")) data = line.substring(6);
            }
        }

        /** True once {@code expected} is read within {@code wait}. */
        boolean awaitLine(String expected, Duration wait) throws InterruptedException {
            long until = System.nanoTime() + wait.toNanos();
            for (long left; (left = until - System.nanoTime()) > 0; ) {
                String line = lines.poll(left, TimeUnit.NANOSECONDS);
                if (line == null || line.equals(CLOSED)) return false;
                if (line.equals(expected)) return true;
            }
            return false;
        }

        @Override
        public void close() throws Exception {
            response.body().close();
        }
    }

    /**
     * Stands between the other nodes and one node (its advertise_url): forwards each request to it
     * over real HTTP and records, per job, the requests asked and the status each got.
     */
    static final class PeerProxy implements AutoCloseable {
        private static final Pattern JOB = Pattern.compile("/cluster/jobs/([^/]+)/logs");
        private final com.sun.net.httpserver.HttpServer server;
        private final HttpClient client = HttpClient.newHttpClient();
        private final Map<String, AtomicInteger> asked = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, List<Integer>> statuses = new java.util.concurrent.ConcurrentHashMap<>();
        private volatile int targetPort;

        PeerProxy() throws java.io.IOException {
            server = com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
            server.createContext("/", exchange -> {
                Matcher m = JOB.matcher(exchange.getRequestURI().getPath());
                String job = m.matches() ? m.group(1) : "";
                asked.computeIfAbsent(job, j -> new AtomicInteger()).incrementAndGet();
                try {
                    HttpRequest.Builder b = HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + targetPort + exchange.getRequestURI()));
                    String auth = exchange.getRequestHeaders().getFirst("Authorization");
                    if (auth != null) b.header("Authorization", auth);
                    HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
                    statuses.computeIfAbsent(job, j -> new CopyOnWriteArrayList<>())
                            .add(r.statusCode());
                    exchange.sendResponseHeaders(r.statusCode(), r.body().length == 0 ? -1 : r.body().length);
                    if (r.body().length > 0) exchange.getResponseBody().write(r.body());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    exchange.sendResponseHeaders(502, -1);
                } finally {
                    exchange.close();
                }
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        void target(int port) {
            targetPort = port;
        }

        /** Requests for the job's log received so far, answered or still waiting. */
        int asked(JobUuid job) {
            AtomicInteger n = asked.get(job.toString());
            return n == null ? 0 : n.get();
        }

        /** The statuses of the answered ones, in order. */
        List<Integer> statuses(JobUuid job) {
            return List.copyOf(statuses.getOrDefault(job.toString(), List.of()));
        }

        @Override
        public void close() {
            server.stop(0);
            client.shutdownNow();
        }
    }

    SseLines follow(BatonServer node, JobUuid job, String lastEventId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(node, logsPath(job) + "?follow=true")))
                .header("Authorization", "Bearer " + ADMIN);
        if (lastEventId != null) b.header("Last-Event-ID", lastEventId);
        HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        SseLines s = new SseLines(r);
        streams.add(s);
        return s;
    }

    String logsPath(JobUuid job) {
        return "/v0/projects/" + project.slug().value() + "/jobs/" + job + "/logs";
    }

    Handle newRunner() {
        return newRunner(spec);
    }

    Handle newRunner(Spec serves) {
        RunnerKey key = RunnerKey.generate();
        String name = "runner " + names.incrementAndGet();
        Runner runner = store.runners().createRunner(name, Slug.fromName(name), key.hash(), Instant.now());
        if (serves != null) store.specs().addRunnerSpec(runner.id(), serves.id());
        return new Handle(runner, key.reveal());
    }

    TestRunner connect(BatonServer node, Handle h) {
        TestRunner r = TestRunner.connect(
                URI.create("ws://127.0.0.1:" + node.port() + "/v0/runners/"
                        + h.runner().slug() + "/channel"),
                h.key());
        r.welcome();
        connections.add(r);
        return r;
    }

    /** A job submitted through {@code via}, claimed and started by {@code runner}. */
    ClaimedJob runningJob(TestRunner runner, BatonServer via) throws Exception {
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
        JobUuid uuid = submit(via, spec);
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid()).isEqualTo(uuid);
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.expect(ServerMessage.Ack.class);
        return claimed;
    }

    static void complete(TestRunner runner, ClaimedJob job, String stdout) {
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, stdout, "", Map.of()))));
        runner.expect(ServerMessage.Ack.class);
    }

    JobUuid submit(BatonServer node, Spec spec) throws Exception {
        // raw: the printed lines are no benchmark data, and the job must reach processed.
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(url(node, "/v0/run")))
                        .header("Authorization", "Bearer " + ADMIN)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(Map.of(
                                "project",
                                project.slug().value(),
                                "spec",
                                spec.slug().value(),
                                "adapter",
                                "raw",
                                "cmd",
                                List.of("bench"),
                                "timeout",
                                120))))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        return JobUuid.parse(
                Wire.mapper().readTree(r.body()).path("job").path("uuid").asText());
    }

    JsonNode get(BatonServer node, String path) throws Exception {
        HttpResponse<String> r = raw(node, path, ADMIN);
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return Wire.mapper().readTree(r.body());
    }

    HttpResponse<String> raw(BatonServer node, String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(node, path)));
        if (bearer != null) b.header("Authorization", "Bearer " + bearer);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String url(BatonServer node, String path) {
        return "http://127.0.0.1:" + node.port() + path;
    }

    /** Signs in to the console of {@code node} through its form (cookie names as in console/Csrf and ConsoleSignIn); returns the session cookie. */
    String signIn(BatonServer node) throws Exception {
        HttpResponse<String> page = http.send(
                HttpRequest.newBuilder(URI.create(url(node, "/console/sign-in")))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        String pre = cookie(page, "baton_console_pre");
        Matcher csrf = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(csrf.find()).isTrue();
        String form = Map.of("_csrf", csrf.group(1), "token", ADMIN).entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create(url(node, "/console/sign-in")))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", pre)
                        .POST(HttpRequest.BodyPublishers.ofString(form))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(303);
        return cookie(r, "baton_console");
    }

    private static String cookie(HttpResponse<?> r, String name) {
        List<String> found = new ArrayList<>();
        for (String c : r.headers().allValues("Set-Cookie")) if (c.startsWith(name + "=")) found.add(c.split(";")[0]);
        assertThat(found).as("cookie " + name).isNotEmpty();
        return found.getFirst();
    }
}
