package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Usage per period (issue 41) on both dialects: each minute counts in the period in which it was
 * billed, per organization and project; a period is {@code [from, to)}, so a minute billed at the
 * first instant of a month belongs to that month and one billed at its last microsecond to it too.
 */
abstract class UsageStoreContract {
    static final Instant MARCH = Instant.parse("2026-03-01T00:00:00Z");
    static final Instant APRIL = Instant.parse("2026-04-01T00:00:00Z");
    static final Instant MAY = Instant.parse("2026-05-01T00:00:00Z");
    static final Instant JUNE = Instant.parse("2026-06-01T00:00:00Z");

    Store store;
    Spec spec;
    Runner runner;
    Organization acme;
    Organization other;
    Project web;
    Project api;
    Project theirs;

    abstract Store openStore();

    @BeforeEach
    void open() {
        store = openStore();
        Instant t = MARCH.minus(Duration.ofDays(1));
        acme = store.organizations().createOrganization("Acme", Slug.of("acme"), PlanTier.TEAM, t);
        other = store.organizations().createOrganization("Other", Slug.of("other"), PlanTier.TEAM, t);
        web = store.organizations().createProject(acme.id(), "Web", Slug.of("web"), t);
        api = store.organizations().createProject(acme.id(), "Api", Slug.of("api"), t);
        theirs = store.organizations().createProject(other.id(), "Theirs", Slug.of("theirs"), t);
        spec = store.specs().createSpec("S", Slug.of("s"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, t);
        runner = store.runners()
                .createRunner("R", Slug.of("r"), RunnerKey.generate().hash(), t);
        store.specs().addRunnerSpec(runner.id(), spec.id());
    }

    @AfterEach
    void close() {
        store.close();
    }

    Job claimedIn(Project project) {
        Instant t = MARCH.minus(Duration.ofHours(1));
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        project.organizationId(),
                        t)
                .job();
        return TestClaims.claim(store, runner.id(), LeaseId.random(), t, t.plus(Duration.ofHours(1)))
                .orElseThrow();
    }

    List<ProjectMinutes> usage(Organization org, Instant from, Instant to) {
        return store.liveness().billedMinutes(org.id(), from, to);
    }

    @Test
    void eachMinuteCountsInThePeriodItWasBilledInPerProject() {
        Job webJob = claimedIn(web);
        Job apiJob = claimedIn(api);
        Job theirJob = claimedIn(theirs);
        // The last microsecond of March, then the first instant of April.
        assertThat(store.liveness().billMinutes(webJob.uuid(), 3, APRIL.minusNanos(1000)))
                .isEqualTo(3);
        assertThat(store.liveness().billMinutes(webJob.uuid(), 5, APRIL)).isEqualTo(2);
        assertThat(store.liveness().billMinutes(webJob.uuid(), 5, APRIL.plusSeconds(30)))
                .as("nothing new: no ledger row")
                .isZero();
        assertThat(store.liveness().billMinutes(apiJob.uuid(), 4, MAY.minusSeconds(60)))
                .isEqualTo(4);
        assertThat(store.liveness().billMinutes(apiJob.uuid(), 6, MAY)).isEqualTo(2);
        assertThat(store.liveness().billMinutes(theirJob.uuid(), 7, APRIL.plus(Duration.ofDays(3))))
                .isEqualTo(7);

        assertThat(usage(acme, MARCH, APRIL)).containsExactly(new ProjectMinutes(web.id(), 3));
        assertThat(usage(acme, APRIL, MAY))
                .containsExactlyInAnyOrder(new ProjectMinutes(web.id(), 2), new ProjectMinutes(api.id(), 4));
        assertThat(usage(acme, MAY, JUNE)).containsExactly(new ProjectMinutes(api.id(), 2));
        assertThat(usage(acme, JUNE, JUNE.plus(Duration.ofDays(30)))).isEmpty();
        assertThat(usage(other, APRIL, MAY)).containsExactly(new ProjectMinutes(theirs.id(), 7));
        // Every period together is the organization's all-time total.
        long whole = usage(acme, Instant.EPOCH, JUNE).stream()
                .mapToLong(ProjectMinutes::minutes)
                .sum();
        assertThat(whole).isEqualTo(store.liveness().billedMinutes(acme.id())).isEqualTo(11);
    }

    @Test
    void concurrentBillingWritesEachMinuteOnceToTheLedger() throws Exception {
        Job job = claimedIn(web);
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int m = 1; m <= 20; m++) store.liveness().billMinutes(job.uuid(), m, APRIL.plusSeconds(m * 60L));
            }));
        }
        for (Thread t : threads) t.join();
        assertThat(usage(acme, APRIL, MAY)).containsExactly(new ProjectMinutes(web.id(), 20));
    }
}
