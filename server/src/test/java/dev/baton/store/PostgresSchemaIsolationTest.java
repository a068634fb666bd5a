package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Advisory locks are database-wide. Two Baton installations in two schemas of one database must
 * not make each other skip jobs: a claim in progress for organization 1 in one schema leaves
 * organization 1 of the other schema claimable.
 */
@Tag("postgres")
class PostgresSchemaIsolationTest {
    @TempDir
    Path dir;

    @Test
    void aClaimInProgressInOneSchemaDoesNotBlockTheSameKeysInAnother() {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        String schemaA = TestDatabases.freshPostgresSchema();
        String schemaB = TestDatabases.freshPostgresSchema();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        try (Store a = StoreFactory.open(schemaA, dir.resolve("a"));
                Store b = StoreFactory.open(schemaB, dir.resolve("b"))) {
            long runner = seedFreeJob(b, now);
            seedFreeJob(a, now); // the same ids exist in schema A
            Jdbi jdbi = Jdbi.create("jdbc:" + schemaA);
            jdbi.useTransaction(h -> {
                // Schema A holds the exclusive organization lock a free-tier claim of organization 1 takes.
                PostgresDialect.Candidate freeJob = new PostgresDialect.Candidate(1, 100, 1, "192.0.2.1");
                assertThat(PostgresDialect.lockLimitKeys(((JdbcStore) a).statements, h, freeJob))
                        .isTrue();
                assertThat(TestClaims.claim(b, runner, LeaseId.random(), now))
                        .as("schema B's job of organization 1")
                        .isPresent();
            });
        }
    }

    private static long seedFreeJob(Store store, Instant now) {
        Organization org = store.organizations().createOrganization("Free", Slug.of("free"), PlanTier.FREE, now);
        Project project = store.organizations().createProject(org.id(), "P", Slug.of("p"), now);
        Spec spec = store.specs().createSpec("S", Slug.of("s"), Architecture.X86_64, 1, 1, 1, false, now);
        Runner runner = store.runners().createRunner("R", Slug.of("r"), "0".repeat(64), now);
        store.specs().addRunnerSpec(runner.id(), spec.id());
        JobConfig config = new JobConfig(
                "http://x",
                project.uuid(),
                ImageDigest.of("sha256:" + "a".repeat(64)),
                null,
                List.of("b"),
                Map.of(),
                JobTimeout.of(60),
                null,
                1);
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "t", "json", now, now, null),
                        new NewJob(spec.id(), "192.0.2.1", config, 60, PlanTier.FREE.priority(), RetryPolicy.NONE),
                        org.id(),
                        now)
                .job();
        assertThat(org.id()).isEqualTo(1);
        return runner.id();
    }
}
