package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.Slug;
import dev.baton.server.testing.MutableClock;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.NoiseReading;
import dev.baton.store.Organization;
import dev.baton.store.Project;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.TestClaims;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The noise calibration schedule (decision 0062) on a real store and a moved clock: a connected
 * runner that holds no job is asked once its latest calibration, and the schedule's last request,
 * are an interval old; a busy or disconnected runner is not asked; one node of a cluster asks.
 */
class NoiseScheduleTest {
    static final Duration INTERVAL = Duration.ofHours(6);
    static final Duration NODE_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    final MutableClock clock = new MutableClock(Instant.parse("2026-11-29T12:00:00Z"));
    Store store;
    Spec spec;
    Project project;
    Organization org;
    final List<Long> askedByA = new ArrayList<>();
    final List<Long> askedByB = new ArrayList<>();

    @BeforeEach
    void open() {
        store = StoreFactory.open("sqlite:" + dir.resolve("baton.db"), dir);
        org = store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, clock.instant());
        project = store.organizations().createProject(org.id(), "P", Slug.of("p"), clock.instant());
        spec = store.specs()
                .createSpec("S", Slug.of("s"), Architecture.X86_64, 1, 1L << 30, 1L << 30, false, clock.instant());
        for (String node : List.of("a", "b"))
            store.nodes().registerNode(node, clock.instant(), clock.instant(), clock.instant());
    }

    @AfterEach
    void close() {
        store.close();
    }

    NoiseSchedule schedule(String node, Duration interval, List<Long> asked) {
        return new NoiseSchedule(store, node, clock, interval, NODE_TIMEOUT, runner -> {
            asked.add(runner);
            return Optional.of(node);
        });
    }

    Runner connected(String name, String node) {
        Runner r = store.runners().createRunner(name, Slug.of(name), "hash-" + name, clock.instant());
        store.specs().addRunnerSpec(r.id(), spec.id());
        if (node != null) store.nodes().attachRunner(r.id(), node);
        return r;
    }

    /** Time passes; both nodes keep heartbeating (a dead node's runners are not connected). */
    void advance(Duration by) {
        clock.advance(by);
        for (String node : List.of("a", "b")) store.nodes().recordLiveness(node, clock.instant(), Map.of(), Map.of());
    }

    void claimAJob(Runner r) {
        JobConfig config = new JobConfig(
                "http://127.0.0.1:7700",
                project.uuid(),
                null,
                List.of("/bin/sh"),
                List.of("-c", "true"),
                Map.of(),
                new JobTimeout(60),
                null,
                1);
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", config, 60, 200, RetryPolicy.NONE),
                        org.id(),
                        clock.instant());
        assertThat(TestClaims.claim(
                        store,
                        r.id(),
                        LeaseId.random(),
                        clock.instant(),
                        clock.instant().plusSeconds(3600)))
                .isPresent();
    }

    @Test
    void offByDefaultItAsksNoOneAndTakesNoLease() {
        connected("r1", "a");
        NoiseSchedule off = schedule("a", Duration.ZERO, askedByA);
        assertThat(off.enabled()).isFalse();
        assertThat(off.runOnce()).isEmpty();
        assertThat(askedByA).isEmpty();
        assertThat(store.noise()
                        .takeCalibrationLease(
                                "b", clock.instant(), clock.instant().plusSeconds(60)))
                .as("no lease was taken")
                .isTrue();
    }

    @Test
    void anIdleConnectedRunnerIsAskedOncePerIntervalAndABusyOrDisconnectedOneIsNot() {
        Runner fresh = connected("fresh", "a");
        Runner measured = connected("measured", "b");
        Runner busy = connected("busy", "a");
        connected("away", null);
        store.noise().recordNoise(measured.id(), new NoiseReading(clock.instant(), 0.01, 0.02, 0.03, 200, null));
        claimAJob(busy);
        NoiseSchedule a = schedule("a", INTERVAL, askedByA);

        assertThat(a.runOnce())
                .as("never calibrated: due at once; a runner on another live node is asked through it")
                .containsExactly(fresh.id());
        advance(Duration.ofHours(1));
        assertThat(a.runOnce()).as("asked an hour ago, no answer yet").isEmpty();

        advance(Duration.ofHours(5));
        assertThat(a.runOnce())
                .as("six hours on: the silent runner again, and the one whose calibration is six hours old")
                .containsExactlyInAnyOrder(fresh.id(), measured.id());

        store.noise().recordNoise(fresh.id(), new NoiseReading(clock.instant(), 0.01, 0.02, 0.03, 200, null));
        advance(Duration.ofHours(6).minusSeconds(1));
        assertThat(a.runOnce()).isEmpty();
        advance(Duration.ofSeconds(1));
        assertThat(a.runOnce()).containsExactlyInAnyOrder(fresh.id(), measured.id());
        assertThat(askedByA)
                .as("never the runner that holds a job, nor the one with no channel")
                .doesNotContain(busy.id());
    }

    @Test
    void oneNodeAsksTheOtherTakesOverWhenItsLeaseExpires() {
        Runner r = connected("r1", "a");
        NoiseSchedule a = schedule("a", INTERVAL, askedByA);
        NoiseSchedule b = schedule("b", INTERVAL, askedByB);
        assertThat(a.runOnce()).containsExactly(r.id());
        assertThat(b.runOnce()).as("a holds the lease").isEmpty();

        // a stops running passes (it died or left); its lease runs out and b takes it.
        advance(NoiseSchedule.LEASE.plusSeconds(1));
        assertThat(b.runOnce())
                .as("b takes over; the store says r1 has no calibration")
                .containsExactly(r.id());
        assertThat(a.runOnce()).as("a no longer holds the lease").isEmpty();
    }
}
