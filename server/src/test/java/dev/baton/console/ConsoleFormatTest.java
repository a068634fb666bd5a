package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.console.Views.CompareRow;
import dev.baton.core.adapter.Metric;
import dev.baton.core.adapter.Metrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How the console writes numbers, durations and changes: one format everywhere. */
class ConsoleFormatTest {
    @Test
    void numbersAreGroupedAndNeverInExponentForm() {
        assertThat(Format.number(22211)).isEqualTo("22,211");
        assertThat(Format.number(22221.53)).isEqualTo("22,221.5");
        assertThat(Format.number(12.5)).isEqualTo("12.5");
        assertThat(Format.number(0.000123456)).isEqualTo("0.0001235");
        assertThat(Format.number(1.23456789e9 + 0.5)).isEqualTo("1,234,567,890.5");
        assertThat(Format.number(-3.14159)).isEqualTo("-3.142");
    }

    @Test
    void durationsHaveOneFormat() {
        assertThat(Format.duration(Duration.ofMillis(850))).isEqualTo("850 ms");
        assertThat(Format.duration(Duration.ofMillis(1500))).isEqualTo("1.5 s");
        assertThat(Format.duration(Duration.ofSeconds(184))).isEqualTo("3 min 4 s");
        assertThat(Format.duration(Duration.ofMinutes(125))).isEqualTo("2 h 5 min");
    }

    /** issue 44: a +25 % latency and a −10 % throughput are both worse; they must not look like a +25 % throughput. */
    @Test
    void aChangeIsBetterOrWorseByTheMeasuresDirection() {
        assertThat(new CompareRow("sort", "latency", 10.0, 12.5, 25.0).verdict())
                .isEqualTo("worse");
        assertThat(new CompareRow("sort", "throughput", 100.0, 90.0, -10.0).verdict())
                .isEqualTo("worse");
        assertThat(new CompareRow("sort", "throughput", 100.0, 125.0, 25.0).verdict())
                .isEqualTo("better");
        assertThat(new CompareRow("sort", "latency", 10.0, 9.0, -10.0).verdict())
                .isEqualTo("better");
        assertThat(new CompareRow("sort", "allocations", 4.0, 5.0, 25.0).verdict())
                .isEqualTo("worse");
        assertThat(new CompareRow("sort", "bandwidth", 4.0, 5.0, 25.0).verdict())
                .isEqualTo("better");
        assertThat(new CompareRow("sort", "frames", 4.0, 5.0, 25.0).verdict())
                .as("a measure the project named: direction unknown")
                .isEqualTo("changed");
        assertThat(new CompareRow("sort", "latency", 10.0, 10.0, 0.0).verdict()).isEqualTo("same");
        assertThat(new CompareRow("sort", "latency", null, 10.0, null).verdict())
                .isEqualTo("same");
    }

    @Test
    void aComparisonGivesEachMeasureOfEitherRunAndItsChangeInPercent() {
        Metrics before = new Metrics.Builder()
                .add("sort", "latency", metric(10))
                .add("sort", "gone", metric(1))
                .build();
        Metrics now = new Metrics.Builder()
                .add("sort", "latency", metric(12.5))
                .add("sort", "new", metric(3))
                .build();
        var rows = Comparison.rows(before, now);
        assertThat(rows).extracting(CompareRow::measure).containsExactly("latency", "new", "gone");
        assertThat(rows.get(0).change()).isEqualTo("+25.0 %");
        assertThat(rows.get(0).direction()).isEqualTo("up");
        assertThat(rows.get(1).change()).isEqualTo("—");
        assertThat(rows.get(2).current()).isNull();
        assertThat(new CompareRow("b", "m", 200.0, 150.0, -25.0).change()).isEqualTo("−25.0 %");
    }

    private static Metric metric(double value) {
        return new Metric(value, null, null);
    }
}
