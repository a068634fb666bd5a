package dev.baton.protocol.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.message.Wire;
import org.junit.jupiter.api.Test;

class JobStatusTest {
    @Test
    void codesAreTheStableIntegersOfTheSeeds() {
        assertThat(JobStatus.PENDING.code()).isZero();
        assertThat(JobStatus.CLAIMED.code()).isEqualTo(1);
        assertThat(JobStatus.RUNNING.code()).isEqualTo(2);
        assertThat(JobStatus.COMPLETED.code()).isEqualTo(3);
        assertThat(JobStatus.FAILED.code()).isEqualTo(4);
        assertThat(JobStatus.CANCELED.code()).isEqualTo(5);
        assertThat(JobStatus.PROCESSED.code()).isEqualTo(6);
        for (JobStatus s : JobStatus.values())
            assertThat(JobStatus.ofCode(s.code())).isSameAs(s);
        assertThatThrownBy(() -> JobStatus.ofCode(7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("7");
        assertThatThrownBy(() -> JobStatus.ofCode(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void wireNamesAreLowercaseAndRoundTrip() throws Exception {
        for (JobStatus s : JobStatus.values()) {
            assertThat(JobStatus.parse(s.wireName())).isSameAs(s);
            String json = Wire.mapper().writeValueAsString(s);
            assertThat(json).isEqualTo("\"" + s.name().toLowerCase() + "\"");
            assertThat(Wire.mapper().readValue(json, JobStatus.class)).isSameAs(s);
        }
        assertThatThrownBy(() -> JobStatus.parse("RUNNING")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void inFlightIsClaimedOrRunning() {
        for (JobStatus s : JobStatus.values()) {
            assertThat(s.inFlight()).as("%s", s).isEqualTo(s == JobStatus.CLAIMED || s == JobStatus.RUNNING);
        }
    }
}
