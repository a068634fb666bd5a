package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.PairedConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the runner ends a paired job with until_significant (issue 45, decision 0050), time injected. */
class PairedStopTest {
    private static final class MovableClock extends Clock {
        Instant now = Instant.parse("2026-11-29T10:00:00Z");

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private static IterationResult out(double v) {
        return new IterationResult(0, "{\"b\":{\"latency\":{\"value\":" + v + "}}}", "", Map.of());
    }

    /** {@code pairs} pairs with the baseline at 100 ± noise and the candidate {@code shift} above. */
    private static List<IterationResult> pairs(PairedConfig config, int pairs, double shift) {
        List<IterationResult> results = new ArrayList<>();
        double[] noise = {0.5, -0.3, 0.8, -0.6, 0.1, -0.9, 0.4, 0.7, -0.2, 0.3};
        for (int i = 0; i < 2 * pairs; i++) {
            boolean baseline = config.side(i) == PairedConfig.Side.BASELINE;
            results.add(out(100 + noise[(i * 7) % noise.length] + (baseline ? 0 : shift)));
        }
        return results;
    }

    @Test
    void stopsWhenEveryMetricIsDecidedAndNotBefore() {
        PairedConfig config = new PairedConfig(List.of("old"), 200, 3, true, null, null, "json", null);
        PairedStop stop = PairedStop.of(config, new MovableClock());
        assertThat(stop.enough(List.of())).isFalse();
        assertThat(stop.enough(pairs(config, 7, 20)))
                .as("the median's always-valid interval is unbounded before the eighth pair")
                .isFalse();
        assertThat(stop.enough(pairs(config, 8, 20))).isTrue();
    }

    @Test
    void stopsWhenTheBudgetIsSpent() {
        PairedConfig config = new PairedConfig(List.of("old"), 200, 3, true, 60, null, "json", null);
        MovableClock clock = new MovableClock();
        PairedStop stop = PairedStop.of(config, clock);
        assertThat(stop.enough(List.of())).isFalse();
        // The same output on both sides but noisy, never decided within the budget's few pairs.
        clock.now = clock.now.plus(Duration.ofSeconds(59));
        assertThat(stop.enough(pairs(config, 2, 0))).isFalse();
        clock.now = clock.now.plus(Duration.ofSeconds(1));
        assertThat(stop.enough(pairs(config, 3, 0))).isTrue();
    }

    @Test
    void aFixedDesignHasNoStop() {
        assertThat(PairedStop.of(
                        new PairedConfig(List.of("old"), 10, 3, null, null, null, "json", null), Clock.systemUTC()))
                .isNull();
        assertThat(PairedStop.of(null, Clock.systemUTC())).isNull();
    }
}
