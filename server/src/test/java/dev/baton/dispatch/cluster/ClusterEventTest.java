package dev.baton.dispatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The NOTIFY payloads: every event comes back as sent, with its sender; leases never travel. */
class ClusterEventTest {
    @Test
    void everyEventRoundTripsWithItsSender() {
        JobUuid job = JobUuid.random();
        List<ClusterEvent> events = List.of(
                new ClusterEvent.Pending(7),
                new ClusterEvent.Finished(),
                new ClusterEvent.AttemptEnded(job, 2, 11, "acceptance_timeout"),
                new ClusterEvent.AttemptEnded(job, 3, 11, null),
                new ClusterEvent.CancelRunner(job, 2, 11, "canceled_by_user"),
                new ClusterEvent.ToRunner(11, "{\"event\":\"drain\"}"),
                new ClusterEvent.Resync(),
                new ClusterEvent.SpecsChanged(),
                new ClusterEvent.Watching(),
                new ClusterEvent.Changed(true, List.of()),
                new ClusterEvent.Changed(false, List.of(job, JobUuid.random())));
        for (ClusterEvent e : events) {
            String payload = ClusterEvent.encode("node-a", e);
            assertThat(payload).doesNotContain("lease");
            ClusterEvent.Received r = ClusterEvent.decode(payload);
            assertThat(r).isNotNull();
            assertThat(r.from()).isEqualTo("node-a");
            assertThat(r.event()).isEqualTo(e);
        }
    }

    @Test
    void aPayloadThisVersionDoesNotKnowIsIgnored() {
        assertThat(ClusterEvent.decode("{\"from\":\"n\",\"type\":\"from_the_future\"}"))
                .isNull();
        assertThat(ClusterEvent.decode("not json")).isNull();
    }
}
