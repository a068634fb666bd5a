package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SkippedHeartbeatsTest {
    private static final Instant T = Instant.parse("2026-11-24T05:00:00Z");

    @Test
    void aSkippedTimeRidesWithTheNextWriteAndTheLaterTimeWins() {
        SkippedHeartbeats skipped = new SkippedHeartbeats();
        JobUuid a = JobUuid.random();
        JobUuid b = JobUuid.random();
        JobUuid c = JobUuid.random();
        Map<JobUuid, Instant> first = skipped.takeWith(Map.of(a, T.plusSeconds(2), b, T.plusSeconds(2)));
        skipped.keep(first, Set.of(a, b));
        assertThat(skipped.size()).isEqualTo(2);

        // The next flush saw a again later and b earlier (an older time is never written over a newer one).
        Map<JobUuid, Instant> second = skipped.takeWith(Map.of(a, T.plusSeconds(3), b, T.plusSeconds(1), c, T));
        assertThat(second).containsExactlyInAnyOrderEntriesOf(Map.of(a, T.plusSeconds(3), b, T.plusSeconds(2), c, T));
        assertThat(skipped.size()).isZero();

        skipped.keep(second, Set.of());
        assertThat(skipped.takeWith(Map.of())).isEmpty();
    }
}
