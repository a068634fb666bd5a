package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.TestDatabases;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The Open Job Spec conformance suite against a real Baton server (the full assembly, one per
 * store, 127.0.0.1, a free port, its OJS tables emptied before each case: {@link Node}). The server's clock is a {@link ShiftedClock}: a case's
 * waits and delays move it forward instead of sleeping ({@code -Dojs.realtime=true}: the system
 * clock and real sleeps).
 * Each case is one dynamic test named "test_id (file)". The data stays in the shared directory:
 * {@code -Dojs.conformance.dir} or {@code OJS_CONFORMANCE_DIR}, else
 * {@code ../shared/ojs-conformance} from the repository root; without it every test is skipped
 * with that message. {@code -Dojs.levels=0,1,2} chooses levels (default every level,
 * 0,1,2,3,4,ext: what CI runs, since all of them pass); {@code -Dojs.stores=sqlite,postgresql} the stores (PostgreSQL skipped if unreachable);
 * {@code -Dojs.filter=cron} only the files whose path contains that text.
 * Per-level results go to target/ojs-conformance.txt and the test output.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("postgres")
class OjsConformanceTest {
    private static final Map<String, String> LEVEL_DIRS = Map.of(
            "0",
            "level-0-core",
            "1",
            "level-1-reliable",
            "2",
            "level-2-scheduled",
            "3",
            "level-3-workflows",
            "4",
            "level-4-advanced",
            "ext",
            "ext-graceful-shutdown");

    private final Map<String, Boolean> postgresReachable = new ConcurrentHashMap<>();

    /** store → its server (see {@link Node}). */
    private final Map<String, Node> nodes = new ConcurrentHashMap<>();

    /** store → level → [passed, failed, skipped]. */
    private final Map<String, Map<String, int[]>> results = new ConcurrentHashMap<>();

    @TestFactory
    Stream<DynamicNode> conformance() throws IOException {
        Path dir = dataDirectory();
        if (!Files.isDirectory(dir)) {
            return Stream.of(DynamicTest.dynamicTest(
                    "OJS conformance data not found",
                    () -> Assumptions.abort("skipped: the OJS conformance cases are not at " + dir.toAbsolutePath()
                            + " (set -Dojs.conformance.dir or OJS_CONFORMANCE_DIR)")));
        }
        List<String> levels = Arrays.stream(
                        System.getProperty("ojs.levels", "0,1,2,3,4,ext").split(","))
                .map(String::strip)
                .toList();
        List<String> stores = Arrays.stream(
                        System.getProperty("ojs.stores", "sqlite,postgresql").split(","))
                .map(String::strip)
                .toList();
        List<DynamicNode> nodes = new ArrayList<>();
        for (String store : stores) {
            List<DynamicNode> perLevel = new ArrayList<>();
            for (String level : levels) {
                Path levelDir = dir.resolve(LEVEL_DIRS.getOrDefault(level, level));
                if (!Files.isDirectory(levelDir)) continue;
                List<Path> files;
                try (Stream<Path> walk = Files.walk(levelDir)) {
                    files = walk.filter(p -> p.toString().endsWith(".json"))
                            .sorted(Comparator.comparing(Path::toString))
                            .toList();
                }
                List<DynamicNode> cases = new ArrayList<>();
                String filter = System.getProperty("ojs.filter", "");
                for (Path file : files) {
                    if (!file.toString().contains(filter)) continue;
                    JsonNode spec = ConformanceCase.read(file);
                    String relative = dir.relativize(file).toString();
                    String name = spec.path("test_id").asText("?") + " (" + relative + ")";
                    cases.add(DynamicTest.dynamicTest(
                            name, file.toUri(), () -> runCase(store, level, relative, file, spec)));
                }
                perLevel.add(DynamicContainer.dynamicContainer("level " + level, cases));
            }
            nodes.add(DynamicContainer.dynamicContainer(store, perLevel));
        }
        return nodes.stream();
    }

    private void runCase(String store, String level, String relative, Path file, JsonNode spec) throws Exception {
        int[] counts =
                results.computeIfAbsent(store, s -> new ConcurrentHashMap<>()).computeIfAbsent(level, l -> new int[3]);
        // Asked once: a PostgreSQL that goes away in the middle of the run fails cases, it does not skip them.
        if (store.equals("postgresql")
                && !postgresReachable.computeIfAbsent(store, s -> TestDatabases.postgresReachable())) {
            synchronized (counts) {
                counts[2]++;
            }
            Assumptions.abort("skipped: PostgreSQL is not reachable at " + TestDatabases.PG_HOST_URL);
        }
        Node node = nodes.computeIfAbsent(store, OjsConformanceTest::startNode);
        try {
            node.reset();
            new ConformanceCase(file, spec, "http://127.0.0.1:" + node.server().port(), node.token(), node.pause())
                    .run();
        } catch (AssertionError | Exception e) {
            synchronized (counts) {
                counts[1]++;
            }
            throw e;
        }
        synchronized (counts) {
            counts[0]++;
        }
    }

    /**
     * One server per store, for every case: starting the assembled server (migrations on a new
     * database) took most of the suite's time. Before each case the OJS tables are emptied,
     * which is all the OJS door keeps (it holds no state in memory), so each case starts from an
     * empty queue as on a fresh server.
     */
    record Node(BatonServer server, Path dataDir, String jdbcUrl, String token, ConformanceCase.Pause pause) {
        void reset() throws java.sql.SQLException {
            // Every ojs_* table the database has (OjsTablesTest checks that these are all the OJS migrations create).
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl)) {
                OjsTables.empty(c);
            }
        }
    }

    private static Node startNode(String store) {
        try {
            Path dataDir = Files.createTempDirectory("ojs-conformance");
            String databaseUrl = store.equals("postgresql") ? TestDatabases.freshPostgresSchema() : null;
            boolean realTime = Boolean.getBoolean("ojs.realtime");
            ShiftedClock clock = new ShiftedClock();
            ConformanceCase.Pause pause = realTime ? Thread::sleep : millis -> clock.advance(Duration.ofMillis(millis));
            BatonServer server = ServerAssembly.builder(
                            config(dataDir, databaseUrl), realTime ? Clock.systemUTC() : clock)
                    .start();
            String jdbcUrl = databaseUrl != null
                    ? "jdbc:" + databaseUrl
                    : "jdbc:sqlite:" + dataDir.resolve("baton.db") + "?busy_timeout=10000";
            return new Node(
                    server,
                    dataDir,
                    jdbcUrl,
                    Files.readString(dataDir.resolve("admin-token")).strip(),
                    pause);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Reports the results per store and level, checks that each server's manifest announces the
     * level these results support, then stops the servers. One method, so the manifest is asked
     * before its server stops.
     */
    @AfterAll
    void finish() throws Exception {
        try {
            StringBuilder out = new StringBuilder("OJS conformance results (passed / failed / skipped)\n");
            new TreeMap<>(results)
                    .forEach((store, levels) -> new TreeMap<>(levels)
                            .forEach((level, c) -> out.append(String.format(
                                    "  %-10s level %-3s passed %3d  failed %3d  skipped %3d%n",
                                    store, level, c[0], c[1], c[2]))));
            System.out.print(out);
            Path target = Path.of("target");
            if (Files.isDirectory(target)) Files.writeString(target.resolve("ojs-conformance.txt"), out);
            for (Map.Entry<String, Node> entry : nodes.entrySet()) {
                OptionalInt supported = supportedLevel(results.getOrDefault(entry.getKey(), Map.of()));
                if (supported.isEmpty()) continue; // not every numbered level ran whole: nothing to compare
                assertThat(announcedLevel(entry.getValue()))
                        .as("conformance_level in %s's manifest against the harness's results", entry.getKey())
                        .isEqualTo(supported.getAsInt());
            }
        } finally {
            nodes.values().forEach(n -> {
                n.server().close();
                deleteTree(n.dataDir());
            });
        }
    }

    /**
     * The suite's rule: conformant at level N when every case of level N and of each level below
     * it passes (-1 when level 0 does not). Empty when the run did not cover every numbered level
     * with no filter, so that a partial run proves nothing either way.
     */
    static OptionalInt supportedLevel(Map<String, int[]> levels) {
        if (!System.getProperty("ojs.filter", "").isEmpty()) return OptionalInt.empty();
        int supported = -1;
        for (int level = 0; level <= 4; level++) {
            int[] c = levels.get(String.valueOf(level));
            if (c == null || c[2] > 0) return OptionalInt.empty();
            if (c[1] > 0 || c[0] == 0) break;
            supported = level;
        }
        return OptionalInt.of(supported);
    }

    private static int announcedLevel(Node node) throws Exception {
        HttpResponse<String> answer = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + node.server().port() + "/ojs/manifest"))
                                .header("Authorization", "Bearer " + node.token())
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(answer.body())
                .path("conformance_level")
                .asInt(-2);
    }

    private static Path dataDirectory() {
        String configured = System.getProperty("ojs.conformance.dir", System.getenv("OJS_CONFORMANCE_DIR"));
        if (configured != null && !configured.isBlank()) return Path.of(configured);
        // Tests run in the module directory; the repository root is where mvnw is.
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.exists(root.resolve("mvnw"))) root = root.getParent();
        if (root == null) root = Path.of("").toAbsolutePath();
        return root.resolve("..").resolve("shared").resolve("ojs-conformance").normalize();
    }

    private static ServerConfig config(Path dataDir, String databaseUrl) {
        return ServerConfig.builder(dataDir)
                .host("127.0.0.1")
                .port(0)
                .databaseUrl(databaseUrl)
                .requestBodyMaxBytes(1 << 20)
                .maxRequeues(3)
                .build();
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory left behind is harmless
        }
    }
}
