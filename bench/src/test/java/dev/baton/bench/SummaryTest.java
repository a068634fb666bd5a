package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SummaryTest {
    @Test
    void nearestRankPercentilesInMilliseconds() {
        long[] nanos = LongStream.rangeClosed(1, 100).map(i -> i * 1_000_000).toArray();
        Summary s = Summary.ofNanos(nanos);
        assertThat(s).isEqualTo(new Summary(100, 50.0, 90.0, 99.0, 100.0));
    }

    @Test
    void orderOfSamplesDoesNotMatterAndEmptyIsZero() {
        assertThat(Summary.ofNanos(new long[] {3_000_000, 1_000_000, 2_000_000}))
                .isEqualTo(new Summary(3, 2.0, 3.0, 3.0, 3.0));
        assertThat(Summary.ofNanos(new long[0]).count()).isZero();
    }
}
