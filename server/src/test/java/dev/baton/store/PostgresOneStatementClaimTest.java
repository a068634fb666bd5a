package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.TestDatabases;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's claim in one statement (decision 0059): a job without a tier limit is found,
 * locked, taken and given its attempt by the statement itself; a limited job is handed back
 * locked and untaken, for its limit to be re-read in a later snapshot; a pending preferred label
 * makes the statement look at nothing. The store contract (PostgresStoreTest) holds the claims'
 * behaviour; this holds that the one statement does the work.
 */
@Tag("postgres")
class PostgresOneStatementClaimTest {
    @TempDir
    Path dir;

    @Test
    void theStatementTakesAnUnlimitedJobAndHandsBackALimitedOne() throws Exception {
        assumeTrue(
                TestDatabases.postgresReachable(),
                "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL + ": skipping");
        Instant now = Instant.parse("2026-03-01T00:00:00Z");
        try (JdbcStore store = (JdbcStore) StoreFactory.open(TestDatabases.freshPostgresSchema(), dir)) {
            Organization org = store.organizations().createOrganization("O", new Slug("o"), PlanTier.TEAM, now);
            Project project = store.organizations().createProject(org.id(), "P", new Slug("p"), now);
            Spec spec = store.specs().createSpec("S", new Slug("s"), Architecture.X86_64, 1, 1, 1, false, now);
            Runner runner = store.runners()
                    .createRunner("R", new Slug("r"), RunnerKey.generate().hash(), now);
            store.specs().addRunnerSpec(runner.id(), spec.id());
            Job unlimited = submit(store, project, org, spec, 200, now);
            // Another organization's: its tier limit is not reached by the first claim.
            Organization other = store.organizations().createOrganization("Q", new Slug("q"), PlanTier.TEAM, now);
            Project otherProject = store.organizations().createProject(other.id(), "P", new Slug("p2"), now);
            Job limited = submit(store, otherProject, other, spec, 150, now.plusSeconds(1));

            LeaseId lease = LeaseId.random();
            PostgresClaim.Outcome first = store.context.write(h -> PostgresClaim.run(
                    store.statements,
                    h,
                    new ClaimWrite(
                            runner.id(), lease, now, now.plusSeconds(30), ClaimFilter.NONE, store.context.jobRows)));
            assertThat(first.job()).as("taken by the statement").isPresent();
            assertThat(first.job().get().id()).isEqualTo(unlimited.id());
            assertThat(first.job().get().lease()).isEqualTo(lease);
            assertThat(store.runs().findJob(unlimited.uuid()).orElseThrow().status())
                    .isEqualTo(JobStatus.CLAIMED);
            long attempts = store.context.read(h -> store.statements
                    .on(h, "SELECT COUNT(*) FROM job_attempt WHERE job_id = :job AND lease = :lease AND number = 1")
                    .bind("job", unlimited.id())
                    .bind("lease", lease.value())
                    .one(rs -> rs.getLong(1)));
            assertThat(attempts).as("the attempt opened in the same statement").isEqualTo(1);

            PostgresClaim.Outcome second = store.context.write(h -> PostgresClaim.run(
                    store.statements,
                    h,
                    new ClaimWrite(
                            runner.id(),
                            LeaseId.random(),
                            now,
                            now.plusSeconds(30),
                            ClaimFilter.NONE,
                            store.context.jobRows)));
            // A limited job: the statement finds it and holds its locks, and leaves the re-check of
            // the limit (in a later snapshot) and the take to the caller.
            assertThat(second.job()).isEmpty();
            assertThat(second.candidate().id()).isEqualTo(limited.id());
            assertThat(second.locked()).isTrue();
            assertThat(store.runs().findJob(limited.uuid()).orElseThrow().status())
                    .isEqualTo(JobStatus.PENDING);
        }
    }

    private static Job submit(JdbcStore store, Project project, Organization org, Spec spec, int priority, Instant at) {
        return store.runs()
                .createRun(
                        new NewReport(project.id(), "b", "t", "json", null, null, null),
                        new NewJob(
                                spec.id(), "10.0.0.1", StoreContract.config(project), 60, priority, RetryPolicy.NONE),
                        org.id(),
                        at)
                .job();
    }
}
