package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestDatabases;
import dev.baton.store.OjsRow;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two server nodes (two stores, each with its own connection pool, on one database) racing on the
 * same OJS work: they never both advance one workflow step, and never both enqueue one unique job.
 */
@Tag("postgres")
class OjsAcrossNodesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));

    @TempDir
    Path dataDir;

    private static String databaseUrl(String dialect) {
        if (dialect.equals("sqlite")) return null;
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        return TestDatabases.freshPostgresSchema();
    }

    /**
     * The compare-and-set of the workflow and the insert of the step's job are one transaction.
     * Each workflow's first step is completed in the store directly, as a node that stopped
     * between an ack and the advance leaves it; then both nodes' advances (the sweep's, an ack's) race.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void twoNodesNeverBothEnqueueTheNextStepOfAChain(String dialect) throws Exception {
        String url = databaseUrl(dialect);
        try (Store a = StoreFactory.open(url, dataDir);
                Store b = StoreFactory.open(url, dataDir)) {
            OjsJobs nodeA = new OjsJobs(a, clock);
            OjsJobs nodeB = new OjsJobs(b, clock);
            List<String> workflows = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                ObjectNode wf = nodeA.workflows()
                        .create(JSON.readTree("{\"type\":\"chain\",\"steps\":["
                                + "{\"type\":\"s.zero\",\"args\":[" + i + "],\"options\":{\"queue\":\"q\"}},"
                                + "{\"type\":\"s.one\",\"args\":[" + i + "],\"options\":{\"queue\":\"q\"}},"
                                + "{\"type\":\"s.two\",\"args\":[" + i + "],\"options\":{\"queue\":\"q\"}}]}"));
                workflows.add(wf.get("id").asText());
                String first = wf.get("steps").get(0).get("job_id").asText();
                OjsRow row = a.ojs().findJob(first).orElseThrow();
                ObjectNode doc = OjsJson.read(row.document());
                doc.put("state", "completed");
                doc.putObject("result").put("n", i);
                assertThat(a.ojs()
                                .updateJob(
                                        new OjsRow(
                                                row.seq(),
                                                row.id(),
                                                row.queue(),
                                                "completed",
                                                row.priority(),
                                                null,
                                                null,
                                                null,
                                                row.version(),
                                                OjsJson.write(doc)),
                                        clock.instant()))
                        .isTrue();
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> runs = new ArrayList<>();
            for (int round = 0; round < 3; round++) {
                for (String id : workflows) {
                    for (OjsJobs node : List.of(nodeA, nodeB)) {
                        runs.add(pool.submit(() -> {
                            start.await();
                            node.workflows().advance(id);
                            return null;
                        }));
                    }
                }
            }
            start.countDown();
            try {
                for (Future<?> f : runs) f.get(60, TimeUnit.SECONDS); // a hang fails the test instead of the build
            } finally {
                pool.shutdownNow();
            }
            List<OjsRow> enqueued = b.ojs().jobs("q", "available", 1000);
            for (int i = 0; i < workflows.size(); i++) {
                String id = workflows.get(i);
                JsonNode wf = nodeB.workflows().get(id);
                List<OjsRow> stepOne = enqueued.stream()
                        .filter(r -> OjsJson.read(r.document())
                                .path("workflow_id")
                                .asText()
                                .equals(id))
                        .toList();
                assertThat(stepOne).as("workflow %s: one job for step one", id).hasSize(1);
                assertThat(stepOne.get(0).id())
                        .isEqualTo(wf.get("steps").get(1).get("job_id").asText());
                assertThat(OjsJson.read(stepOne.get(0).document())
                                .path("parent_results")
                                .get(0)
                                .path("n")
                                .asInt())
                        .isEqualTo(i);
                assertThat(wf.get("steps").get(2).get("job_id").isNull()).isTrue();
                assertThat(wf.get("steps_completed").asInt()).isEqualTo(1);
            }
        }
    }

    /** Pushes of one unique key check one after the other (the key's row lock), on every node. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void twoNodesPushingOneUniqueJobAtOnceEnqueueItOnce(String dialect) throws Exception {
        String url = databaseUrl(dialect);
        try (Store a = StoreFactory.open(url, dataDir);
                Store b = StoreFactory.open(url, dataDir)) {
            OjsJobs nodeA = new OjsJobs(a, clock);
            OjsJobs nodeB = new OjsJobs(b, clock);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                for (int key = 0; key < 10; key++) {
                    String body = "{\"type\":\"u.job\",\"args\":[" + key
                            + "],\"options\":{\"queue\":\"u\",\"unique\":{\"on_conflict\":\"ignore\"}}}";
                    CountDownLatch start = new CountDownLatch(1);
                    List<Future<OjsPush.Pushed>> pushes = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        OjsJobs node = i % 2 == 0 ? nodeA : nodeB;
                        pushes.add(pool.submit(() -> {
                            start.await();
                            return node.push(List.of(JSON.readTree(body))).get(0);
                        }));
                    }
                    start.countDown();
                    List<OjsPush.Pushed> answers = new ArrayList<>();
                    for (Future<OjsPush.Pushed> f : pushes) answers.add(f.get(60, TimeUnit.SECONDS));
                    assertThat(answers)
                            .filteredOn(OjsPush.Pushed::created)
                            .as("key %d: created once", key)
                            .hasSize(1);
                    assertThat(answers)
                            .extracting(p -> p.job().get("id").asText())
                            .as("everyone got the one job")
                            .containsOnly(answers.stream()
                                    .filter(OjsPush.Pushed::created)
                                    .findFirst()
                                    .orElseThrow()
                                    .job()
                                    .get("id")
                                    .asText());
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(a.ojs().jobs("u", "available", 100)).hasSize(10);
        }
    }

    /** Issue 47: two nodes sweeping a dead worker at once terminate it once and return each of its jobs once. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void twoNodesReturnADeadWorkersJobsOnce(String dialect) throws Exception {
        String url = databaseUrl(dialect);
        try (Store a = StoreFactory.open(url, dataDir);
                Store b = StoreFactory.open(url, dataDir)) {
            OjsJobs nodeA = new OjsJobs(a, clock);
            OjsJobs nodeB = new OjsJobs(b, clock);
            nodeA.register(JSON.readTree("{\"worker_id\":\"w\",\"queues\":[\"d\"]}"));
            for (int i = 0; i < 10; i++) {
                nodeA.push(List.of(
                        JSON.readTree("{\"type\":\"d.job\",\"args\":[" + i + "],\"options\":{\"queue\":\"d\"}}")));
            }
            assertThat(nodeB.fetch(List.of("d"), 10, "w", Duration.ofMinutes(30)))
                    .hasSize(10);
            clock.advance(Duration.ofSeconds(30));
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> sweeps = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    OjsJobs node = i % 2 == 0 ? nodeA : nodeB;
                    sweeps.add(pool.submit(() -> {
                        start.await();
                        node.sweep();
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : sweeps) f.get(60, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
            assertThat(a.ojs().jobs("d", "available", 100)).hasSize(10);
            assertThat(a.ojs().findWorker("w").orElseThrow().state()).isEqualTo("terminated");
            assertThat(a.ojs().events(List.of("job.enqueued"), List.of("d"), 1000))
                    .as("pushed once, returned once")
                    .hasSize(20);
        }
    }
}
