package dev.baton.dispatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.Architecture;
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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runner spec sets are cached per node (issue 13, docs/decisions/0018): a change made through
 * one node's API must reach what another node serves its runners, over the cluster bus. Two real
 * nodes in this JVM on one PostgreSQL schema; runners speak the real protocol to node B. Node B's
 * clock stands still while a test changes specs, so its cache never ages out: only the
 * notification (or, for a change made on B, B's own store) can make B see the change.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("postgres")
class CrossNodeSpecSetsTest {
    static final String ADMIN = "cross-node-specs-admin-token-0123456789";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path dataDir;

    Store store;
    BatonServer nodeA;
    BatonServer nodeB;
    final PausableClock clockB = new PausableClock();
    Project project;
    final List<TestRunner> connections = new CopyOnWriteArrayList<>();
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        String databaseUrl = TestDatabases.freshPostgresSchema();
        store = StoreFactory.open(databaseUrl, dataDir);
        Organization org =
                store.organizations().createOrganization("Specs", Slug.of("specs"), PlanTier.ENTERPRISE, Instant.now());
        project = store.organizations().createProject(org.id(), "Specs", Slug.of("specs-project"), Instant.now());
        // Node timeout 30 s: node B's clock stands still for a few seconds per test without A finding it dead.
        nodeA = ServerAssembly.builder(
                        ClusterTest.nodeConfig(
                                databaseUrl, dataDir, "node-a", ADMIN, Duration.ofSeconds(30), Duration.ofSeconds(30)),
                        Clock.systemUTC())
                .start();
        nodeB = ServerAssembly.builder(
                        ClusterTest.nodeConfig(
                                databaseUrl, dataDir, "node-b", ADMIN, Duration.ofSeconds(30), Duration.ofSeconds(30)),
                        clockB)
                .start();
    }

    @AfterEach
    void resume() {
        clockB.resume();
    }

    @AfterAll
    void stop() {
        connections.forEach(TestRunner::crash);
        for (BatonServer n : new BatonServer[] {nodeB, nodeA}) if (n != null) n.close();
        if (store != null) store.close();
        http.shutdownNow();
    }

    @Test
    void aSpecAddedToARunnerOnAnotherNodeIsServedByTheRunnersNode() throws Exception {
        Spec small = spec("add-small");
        Spec big = spec("add-big");
        Handle h = runner("adder", small);
        assertThat(connect(nodeB, h).welcome().specs())
                .containsExactly(small.slug().value()); // B caches {small}
        clockB.pause();

        call(
                nodeA,
                "POST",
                "/v0/runners/" + h.runner().slug() + "/specs",
                Map.of("spec", big.slug().value()),
                201);
        awaitWelcome(nodeB, h, List.of(small.slug().value(), big.slug().value()));

        // The dispatcher on B uses the new set too: a job of the added spec is handed out.
        TestRunner runner = connect(nodeB, h);
        runner.welcome();
        JobUuid job = submit(nodeA, big);
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid()).isEqualTo(job);
    }

    @Test
    void aSpecArchivedOrRemovedOnAnotherNodeIsNoLongerServed() throws Exception {
        Spec kept = spec("kept");
        Spec archived = spec("archived-later");
        Spec removed = spec("removed-later");
        Handle h = runner("shrinking", kept, archived, removed);
        assertThat(connect(nodeB, h).welcome().specs())
                .containsExactly(
                        kept.slug().value(),
                        archived.slug().value(),
                        removed.slug().value());
        clockB.pause();

        call(nodeA, "PATCH", "/v0/specs/" + archived.slug(), Map.of("archived", true), 200);
        awaitWelcome(nodeB, h, List.of(kept.slug().value(), removed.slug().value()));
        call(nodeA, "DELETE", "/v0/runners/" + h.runner().slug() + "/specs/" + removed.slug(), null, 204);
        awaitWelcome(nodeB, h, List.of(kept.slug().value()));
    }

    @Test
    void aChangeMadeOnTheRunnersOwnNodeIsSeenThereAtOnce() throws Exception {
        Spec first = spec("local-first");
        Spec second = spec("local-second");
        Handle h = runner("local", first);
        assertThat(connect(nodeB, h).welcome().specs())
                .containsExactly(first.slug().value());
        clockB.pause();

        call(
                nodeB,
                "POST",
                "/v0/runners/" + h.runner().slug() + "/specs",
                Map.of("spec", second.slug().value()),
                201);
        // No wait: B's own store told B's cache before the API answered.
        assertThat(connect(nodeB, h).welcome().specs())
                .containsExactly(first.slug().value(), second.slug().value());
    }

    // ---- helpers ------------------------------------------------------------------------------------

    record Handle(Runner runner, String key) {}

    Spec spec(String slug) {
        return store.specs()
                .createSpec(slug, Slug.of(slug), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, Instant.now());
    }

    Handle runner(String name, Spec... serves) {
        RunnerKey key = RunnerKey.generate();
        Runner runner = store.runners().createRunner(name, Slug.fromName(name), key.hash(), Instant.now());
        for (Spec s : serves) store.specs().addRunnerSpec(runner.id(), s.id());
        return new Handle(runner, key.reveal());
    }

    /** A new connection (replacing the last one): its welcome lists what the node serves the runner now. */
    TestRunner connect(BatonServer node, Handle h) {
        TestRunner r = TestRunner.connect(
                URI.create("ws://127.0.0.1:" + node.port() + "/v0/runners/"
                        + h.runner().slug() + "/channel"),
                h.key());
        connections.add(r);
        return r;
    }

    void awaitWelcome(BatonServer node, Handle h, List<String> specs) {
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> connect(node, h).welcome().specs().equals(specs));
    }

    JobUuid submit(BatonServer node, Spec spec) throws Exception {
        String body = call(
                node,
                "POST",
                "/v0/run",
                Map.of(
                        "project",
                        project.slug().value(),
                        "spec",
                        spec.slug().value(),
                        "adapter",
                        "raw",
                        "cmd",
                        List.of("true"),
                        "timeout",
                        120),
                201);
        return JobUuid.parse(
                Wire.mapper().readTree(body).path("job").path("uuid").asText());
    }

    String call(BatonServer node, String method, String path, Object body, int expected) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + path))
                .header("Authorization", "Bearer " + ADMIN);
        if (body == null) b.method(method, HttpRequest.BodyPublishers.noBody());
        else
            b.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(Wire.encode(body)));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(expected);
        return r.body();
    }

    /** The system clock, which a test can stop (and start again, jumping to the system's time). */
    static final class PausableClock extends Clock {
        private volatile Instant paused;

        void pause() {
            paused = Instant.now();
        }

        void resume() {
            paused = null;
        }

        @Override
        public Instant instant() {
            Instant p = paused;
            return p != null ? p : Instant.now();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
