package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The noisy flag: a latest CV above both 1.5 × the median of its history and the median plus 3 MADs. */
class NoiseFlagTest {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

    /** Newest first: {@code latest}, then the history's CPU CVs from newest to oldest. */
    static List<NoiseReading> cpu(double latest, double... history) {
        List<NoiseReading> out = new ArrayList<>();
        out.add(new NoiseReading(T0.plusSeconds(100), latest, null, null, 200, null));
        for (int i = 0; i < history.length; i++)
            out.add(new NoiseReading(T0.plusSeconds(99 - i), history[i], null, null, 200, null));
        return out;
    }

    @Test
    void aRiseFarPastTheUsualNoiseIsFlagged() {
        assertThat(NoiseFlag.noisy(cpu(0.05, 0.010, 0.011, 0.009, 0.010))).isTrue();
    }

    @Test
    void theUsualWanderIsNotFlagged() {
        assertThat(NoiseFlag.noisy(cpu(0.011, 0.010, 0.011, 0.009, 0.010))).isFalse();
        // 1.5 × the median passed, but within 3 MADs of a machine that always wanders this much
        assertThat(NoiseFlag.noisy(cpu(0.040, 0.010, 0.030, 0.020, 0.040, 0.020)))
                .isFalse();
    }

    @Test
    void withoutEnoughHistoryNothingIsJudged() {
        assertThat(NoiseFlag.noisy(cpu(0.5, 0.01, 0.01))).isFalse();
        assertThat(NoiseFlag.noisy(List.of())).isFalse();
    }

    @Test
    void onlyTheTenBeforeTheLatestAreItsHistory() {
        // ten quiet calibrations just before, noisy ones older than that: the rise is judged against the quiet ten
        double[] history = new double[14];
        for (int i = 0; i < history.length; i++) history[i] = i < 10 ? 0.010 : 0.2;
        assertThat(NoiseFlag.noisy(cpu(0.05, history))).isTrue();
    }

    @Test
    void anyFigureRisingFlagsTheRunner() {
        List<NoiseReading> r = new ArrayList<>();
        r.add(new NoiseReading(T0.plusSeconds(10), 0.01, 0.01, 0.9, 200, null));
        for (int i = 0; i < 4; i++) r.add(new NoiseReading(T0.plusSeconds(9 - i), 0.01, 0.01, 0.1, 200, null));
        assertThat(NoiseFlag.noisy(r)).isTrue();
    }
}
