package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
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
}
