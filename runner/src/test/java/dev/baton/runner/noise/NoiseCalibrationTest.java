package dev.baton.runner.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The calibration's statistics with a clock the test drives, and one real (tiny) run for its shape; no time thresholds. */
class NoiseCalibrationTest {
    @TempDir
    Path dir;

    private static final NoiseCalibration.Size TINY = new NoiseCalibration.Size(4, 1000, 4096, 16);

    @Test
    void theCvIsTheSampleStandardDeviationOverTheMean() {
        // mean 100, sample variance ((10² + 10² + 0 + 0) / 3), so sd = sqrt(200/3)
        assertThat(NoiseCalibration.cv(new long[] {90, 110, 100, 100}))
                .isCloseTo(Math.sqrt(200.0 / 3) / 100, within(1e-12));
        assertThat(NoiseCalibration.cv(new long[] {5, 5, 5})).isZero();
        assertThatThrownBy(() -> NoiseCalibration.cv(new long[] {5})).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachWorkloadIsTimedOverItsRepetitionsWithTheInjectedClock() {
        // Each timed repetition reads the clock twice; the durations it sees are 100, 100, 100, 140 per workload.
        long[] durations = {100, 100, 100, 140};
        LongSupplier clock = new LongSupplier() {
            private long now;
            private int reads;

            @Override
            public long getAsLong() {
                int rep = reads / 2 % durations.length;
                if (reads++ % 2 == 1) now += durations[rep];
                return now;
            }
        };
        List<NoiseCalibration.Figure> figures = new NoiseCalibration(clock, dir, TINY).run();
        assertThat(figures).extracting(NoiseCalibration.Figure::workload).containsExactly("cpu", "memory", "file");
        for (NoiseCalibration.Figure f : figures) {
            assertThat(f.repetitions()).isEqualTo(4);
            assertThat(f.meanNanos()).isEqualTo(110.0);
            assertThat(f.cv()).isCloseTo(NoiseCalibration.cv(durations), within(1e-12));
        }
    }

    @Test
    void aRealRunMeasuresEveryWorkloadAndLeavesNoFile() throws Exception {
        List<NoiseCalibration.Figure> figures = new NoiseCalibration(System::nanoTime, dir, TINY).run();
        assertThat(figures).hasSize(3).allSatisfy(f -> {
            assertThat(f.meanNanos()).isPositive();
            assertThat(f.cv()).isNotNegative();
        });
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void tooFewRepetitionsAreRefused() {
        assertThatThrownBy(() -> new NoiseCalibration.Size(1, 1, 4096, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
