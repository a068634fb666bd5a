package dev.baton.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bounded chaos suite of CI (issue 14): real server and runner processes from this build's
 * distribution archive, a fault phase of {@code baton.chaos.seconds} (default 35 s) per store,
 * then the audit must report no lost, stuck or doubly executed job and every processed job's
 * results stored. The PostgreSQL form runs {@code baton.chaos.pg.nodes} nodes (chaos/pom.xml),
 * and is skipped when no PostgreSQL answers. A failure prints the run's figures, the violating
 * jobs and the seed ({@code scripts/chaos --seed} repeats the schedule, not the exact timing).
 *
 * <p>Both runs have both transports ({@code baton.chaos.transport}, default {@code mixed}): a
 * nats-server the run starts, every job offered on it, two runners on the NATS transport and one on
 * the runner channel, all serving the one spec, so the two transports' claims race for every job,
 * and the broker is killed and restarted among the faults. One run per store covers both
 * transports, which keeps the suite's time in CI near what one transport took.
 *
 * <p>The pool scenario (docs/reliability.md, "The pool scenario") runs once per store too, SQLite
 * with one node and PostgreSQL with two: no runner agents, every job on a single-job runner that a
 * pool of the {@code process} provider started, {@code baton.chaos.pool.seconds} (default 20 s)
 * of one job a second, and on top of the job audit's zeros: no machine or runner process left 60 s
 * after the queue drained, no job on another job's machine, no job with two machines at once.
 */
@Tag("chaos")
class ChaosSuiteTest {
    /** The runs' transport; without a nats-server on this machine, the runner channel alone (said on the console), not no run at all. */
    private static final Transport TRANSPORT = transport();

    private static final String PG_URL =
            System.getenv().getOrDefault("BATON_CHAOS_PG_URL", "postgresql://127.0.0.1:5432/test?user=postgres");

    @TempDir
    static Path dir;

    static Path install;

    @BeforeAll
    static void unpack() throws Exception {
        install = ChaosRun.unpack(Path.of(System.getProperty("baton.archive")), dir.resolve("install"));
    }

    @Test
    void sqliteOneNode() throws Exception {
        audit(Database.SQLITE, 1);
    }

    @Test
    void postgresql() throws Exception {
        assumeTrue(reachable(), "no PostgreSQL at " + PG_URL + ": skipping the PostgreSQL chaos run");
        audit(Database.POSTGRESQL, Integer.getInteger("baton.chaos.pg.nodes", 1));
    }

    private void audit(Database database, int nodes) throws Exception {
        long seed = ThreadLocalRandom.current().nextLong();
        ChaosSettings settings = new ChaosSettings(
                database,
                nodes,
                3,
                2,
                Duration.ofSeconds(Integer.getInteger("baton.chaos.seconds", 35)),
                Duration.ofSeconds(4),
                2,
                Duration.ofSeconds(3),
                Duration.ofMinutes(2),
                seed,
                install,
                dir.resolve(database.name().toLowerCase() + "-" + nodes),
                PG_URL,
                false,
                TRANSPORT,
                false);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        ChaosResult result = new ChaosRun(settings, new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        String report = "seed " + seed + "\n" + progress.toString(StandardCharsets.UTF_8) + result.describe();
        System.out.println(report); // kept in the surefire report even when the run passes

        assertThat(result.submitted()).as(report).isPositive();
        assertThat(result.statuses().getOrDefault("processed", 0)).as(report).isPositive();
        // Every kind of fault happened (the injector's rounds guarantee it in the first round):
        // with several nodes that includes a node frozen past the node timeout, whose runners'
        // late final words must leave every completed attempt's output as its execution printed it.
        assertThat(result.faults().keySet())
                .as(report)
                .containsExactlyInAnyOrderElementsOf(FaultEvent.Kind.injected(nodes, TRANSPORT.broker()).stream()
                        .map(k -> k.name().toLowerCase(java.util.Locale.ROOT))
                        .toList());
        // Each transport of the run did work: a transport that served nothing would make the zeros below say nothing of
        // it.
        if (TRANSPORT.broker())
            assertThat(result.completedByTransport().getOrDefault("nats", 0))
                    .as("attempts completed on the NATS transport\n" + report)
                    .isPositive();
        if (TRANSPORT != Transport.NATS) {
            assertThat(result.completedByTransport().getOrDefault("websocket", 0))
                    .as("attempts completed on the runner channel\n" + report)
                    .isPositive();
        }
        assertThat(result.lost()).as("jobs lost\n" + report).isZero();
        assertThat(result.stuck()).as("jobs stuck\n" + report).isZero();
        assertThat(result.doubleRuns())
                .as("executed twice under a valid lease\n" + report)
                .isZero();
        assertThat(result.overlappingLeases())
                .as("two valid leases at once\n" + report)
                .isZero();
        assertThat(result.missingResults())
                .as("processed jobs without their results\n" + report)
                .isZero();
        assertThat(result.wronglyFailed())
                .as("jobs failed for no fault's sake\n" + report)
                .isZero();
        assertThat(result.violations()).as(report).isEmpty();
    }

    /**
     * The pool scenario on SQLite (one node: the scaler's node killed and started again takes its
     * booting machines back) and on PostgreSQL with two nodes (the killed scaler node stays down
     * until the other took the lease and started machines). Every job runs on a single-job runner a
     * pool of the {@code process} provider started; the provider refuses every fifth start and
     * runners are killed at boot.
     */
    @Test
    void poolSqliteOneNode() throws Exception {
        pool(Database.SQLITE, 1);
    }

    @Test
    void poolPostgresqlTwoNodes() throws Exception {
        assumeTrue(reachable(), "no PostgreSQL at " + PG_URL + ": skipping the PostgreSQL pool chaos run");
        pool(Database.POSTGRESQL, 2);
    }

    private void pool(Database database, int nodes) throws Exception {
        long seed = ThreadLocalRandom.current().nextLong();
        ChaosSettings settings = new ChaosSettings(
                database,
                nodes,
                4,
                1,
                Duration.ofSeconds(Integer.getInteger("baton.chaos.pool.seconds", 20)),
                Duration.ofSeconds(4),
                1,
                Duration.ofSeconds(3),
                // Every job waits for a runner JVM to start; on a loaded 2-core host that took 40-50 s.
                Duration.ofMinutes(6),
                seed,
                install,
                dir.resolve("pool-" + database.name().toLowerCase() + "-" + nodes),
                PG_URL,
                false,
                Transport.WEBSOCKET,
                true);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        ChaosResult result = new ChaosRun(settings, new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        String report = "seed " + seed + "\n" + progress.toString(StandardCharsets.UTF_8) + result.describe();
        System.out.println(report);

        assertThat(result.submitted()).as(report).isPositive();
        assertThat(result.statuses().getOrDefault("processed", 0)).as(report).isPositive();
        assertThat(result.faults().keySet())
                .as(report)
                .containsExactlyInAnyOrderElementsOf(FaultEvent.Kind.injectedInPool().stream()
                        .map(k -> k.name().toLowerCase(java.util.Locale.ROOT))
                        .toList());
        PoolAudit.Findings pool = result.pool();
        assertThat(pool.failedStarts())
                .as("the provider's refused starts\n" + report)
                .isPositive();
        if (nodes > 1)
            assertThat(pool.takeovers()).as("the lease moved\n" + report).isPositive();
        assertThat(result.lost()).as("jobs lost\n" + report).isZero();
        assertThat(result.stuck()).as("jobs stuck\n" + report).isZero();
        assertThat(result.doubleRuns()).as("executed twice\n" + report).isZero();
        assertThat(result.overlappingLeases())
                .as("two valid leases at once\n" + report)
                .isZero();
        assertThat(result.missingResults())
                .as("processed without results\n" + report)
                .isZero();
        assertThat(pool.orphanMachines()).as("orphan machines\n" + report).isZero();
        assertThat(pool.orphanProcesses()).as("orphan processes\n" + report).isZero();
        assertThat(pool.stolen()).as("jobs on another job's machine\n" + report).isZero();
        assertThat(pool.duplicated()).as("two machines for one job\n" + report).isZero();
        assertThat(result.violations()).as(report).isEmpty();
    }

    private static Transport transport() {
        Transport wanted = Transport.parse(System.getProperty("baton.chaos.transport", "mixed"));
        if (!wanted.broker() || java.nio.file.Files.isExecutable(BrokerProcess.BINARY)) return wanted;
        System.out.println("chaos: no nats-server at " + BrokerProcess.BINARY + ": running without the NATS transport");
        return Transport.WEBSOCKET;
    }

    private static boolean reachable() {
        try (Connection c = DriverManager.getConnection("jdbc:" + PG_URL)) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }
}
