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

/** Runners' noise calibrations (decision 0052) on both dialects: kept per runner, newest first, a resend once. */
abstract class NoiseStoreContract {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    Store store;
    int names;

    abstract Store openStore();

    @BeforeEach
    void open() {
        store = openStore();
    }

    @AfterEach
    void close() {
        store.close();
    }

    Runner runner() {
        return store.runners()
                .createRunner(
                        "R" + (++names),
                        Slug.of("r-" + names),
                        RunnerKey.generate().hash(),
                        T0);
    }

    static NoiseReading reading(Instant at, double cpu) {
        return new NoiseReading(at, cpu, 0.05, null, 200, "{\"cpus\":2}");
    }

    @Test
    void calibrationsAreKeptPerRunnerNewestFirstAndAResendIsStoredOnce() {
        Runner a = runner();
        Runner b = runner();
        assertThat(store.noise().noiseHistory(a.id(), 10)).isEmpty();
        assertThat(store.noise().recordNoise(a.id(), reading(T0, 0.01))).isTrue();
        assertThat(store.noise().recordNoise(a.id(), reading(T0.plusSeconds(60), 0.02)))
                .isTrue();
        assertThat(store.noise().recordNoise(a.id(), reading(T0, 0.01)))
                .as("the same calibration again (a reconnect's resend)")
                .isFalse();
        assertThat(store.noise().recordNoise(b.id(), reading(T0.plusSeconds(5), 0.3)))
                .isTrue();

        List<NoiseReading> history = store.noise().noiseHistory(a.id(), 10);
        assertThat(history).containsExactly(reading(T0.plusSeconds(60), 0.02), reading(T0, 0.01));
        assertThat(history.get(0).fileCv())
                .as("a workload not run stays unknown")
                .isNull();
        assertThat(history.get(0).maxCv()).isEqualTo(0.05);
        assertThat(store.noise().noiseHistory(a.id(), 1)).containsExactly(reading(T0.plusSeconds(60), 0.02));

        assertThat(store.noise().noiseHistories(1))
                .containsOnlyKeys(a.id(), b.id())
                .containsEntry(a.id(), List.of(reading(T0.plusSeconds(60), 0.02)))
                .containsEntry(b.id(), List.of(reading(T0.plusSeconds(5), 0.3)));
        assertThat(store.noise().noiseHistories(5).get(a.id())).hasSize(2);
    }

    @Test
    void aRunnerHoldsAnAttemptFromItsClaimUntilTheAttemptEnds() {
        Organization org = store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, T0);
        Project project = store.organizations().createProject(org.id(), "P", Slug.of("p"), T0);
        Spec spec = store.specs().createSpec("S", Slug.of("s"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, T0);
        Runner busy = runner();
        Runner idle = runner();
        store.specs().addRunnerSpec(busy.id(), spec.id());
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        project.organizationId(),
                        T0);
        assertThat(store.noise().holdsAttempt(busy.id())).isFalse();
        LeaseId lease = LeaseId.random();
        Job job = TestClaims.claim(store, busy.id(), lease, T0, T0.plus(Duration.ofHours(1)))
                .orElseThrow();
        assertThat(store.noise().holdsAttempt(busy.id())).as("claimed").isTrue();
        assertThat(store.noise().holdsAttempt(idle.id())).isFalse();
        store.transitions().start(job.uuid(), lease, T0.plusSeconds(1));
        assertThat(store.noise().holdsAttempt(busy.id())).as("running").isTrue();
        store.transitions().complete(job.uuid(), lease, T0.plusSeconds(2));
        assertThat(store.noise().holdsAttempt(busy.id())).as("completed").isFalse();
    }

    @Test
    void oneNodeHoldsTheCalibrationLeaseUntilItExpiresApartFromTheScalers() {
        Instant until = T0.plusSeconds(15);
        assertThat(store.noise().takeCalibrationLease("a", T0, until)).isTrue();
        assertThat(store.noise().takeCalibrationLease("b", T0.plusSeconds(1), T0.plusSeconds(16)))
                .isFalse();
        assertThat(store.noise().takeCalibrationLease("a", T0.plusSeconds(5), T0.plusSeconds(20)))
                .as("renewed by its holder")
                .isTrue();
        assertThat(store.pools().takeScalerLease("b", T0.plusSeconds(5), T0.plusSeconds(20)))
                .as("the scaler's lease is another row")
                .isTrue();
        assertThat(store.noise().takeCalibrationLease("b", T0.plusSeconds(21), T0.plusSeconds(36)))
                .as("expired: another node takes it")
                .isTrue();
        assertThat(store.noise().takeCalibrationLease("a", T0.plusSeconds(22), T0.plusSeconds(37)))
                .isFalse();
    }
}
