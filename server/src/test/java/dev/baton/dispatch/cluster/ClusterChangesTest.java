package dev.baton.dispatch.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.events.Changes;
import dev.baton.protocol.id.JobUuid;
import dev.baton.server.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * When a node sends its console changes to the others, on an injected clock. The bus here only
 * records what would be sent: PostgreSQL's NOTIFY carrying it between real nodes is
 * {@link CrossNodeLiveTest}'s part; this test counts the events, which a real bus cannot show.
 */
class ClusterChangesTest {
    final MutableClock clock = MutableClock.startingNow();
    final List<ClusterEvent> sent = new CopyOnWriteArrayList<>();
    final ClusterBus recording = new ClusterBus() {
        @Override
        public void start(Consumer<ClusterEvent> handler) {}

        @Override
        public void publish(ClusterEvent event) {
            sent.add(event);
        }

        @Override
        public void close() {}
    };
    final Changes local = new Changes();
    final ClusterChanges relay = new ClusterChanges(local, recording, clock);

    @Test
    void nothingIsSentWhileNoOtherNodeWatches() {
        for (int i = 0; i < 1000; i++) local.job(JobUuid.random());
        local.runners();
        relay.tick();
        assertThat(sent).isEmpty();
    }

    @Test
    void changesAreSentMergedWhileAnotherNodeWatchedWithinTheInterestWindow() {
        relay.heard(new ClusterEvent.Watching());
        JobUuid job = JobUuid.random();
        local.job(job);
        local.job(job);
        local.runners();
        relay.tick();
        assertThat(sent).containsExactly(new ClusterEvent.Changed(true, List.of(job)));
        sent.clear();
        relay.tick();
        assertThat(sent).as("nothing new, nothing sent").isEmpty();

        clock.advance(ClusterChanges.INTEREST);
        local.job(JobUuid.random());
        relay.tick();
        assertThat(sent).as("the other node stopped saying it watches").isEmpty();
    }

    @Test
    void manyChangedJobsAreSplitSoThatEachEventFitsANotification() {
        relay.heard(new ClusterEvent.Watching());
        List<JobUuid> jobs = new ArrayList<>();
        for (int i = 0; i < 2 * ClusterChanges.JOBS_PER_EVENT + 1; i++) {
            JobUuid job = JobUuid.random();
            jobs.add(job);
            local.job(job);
        }
        relay.tick();
        assertThat(sent).hasSize(3);
        List<JobUuid> received = new ArrayList<>();
        for (ClusterEvent e : sent) {
            ClusterEvent.Changed c = (ClusterEvent.Changed) e;
            received.addAll(c.jobs());
            assertThat(ClusterEvent.encode("node-with-a-long-name-0123456789", c)
                            .length())
                    .isLessThan(PostgresBus.MAX_PAYLOAD_BYTES);
        }
        assertThat(received).containsExactlyElementsOf(jobs);
    }

    @Test
    void aNodeWithWatchersSaysSoAgainBeforeTheOthersForgetAndHearsTheirChanges() {
        List<Changes.Change> heard = new CopyOnWriteArrayList<>();
        Changes.Subscription console = relay.watched().subscribe(heard::add);
        relay.tick();
        assertThat(sent).containsExactly(new ClusterEvent.Watching());
        clock.advance(ClusterChanges.ANNOUNCE.minusMillis(1));
        relay.tick();
        assertThat(sent).hasSize(1);
        clock.advance(Duration.ofMillis(1));
        relay.tick();
        assertThat(sent).hasSize(2);
        assertThat(ClusterChanges.ANNOUNCE).isLessThan(ClusterChanges.INTEREST);

        JobUuid there = JobUuid.random();
        JobUuid here = JobUuid.random();
        relay.heard(new ClusterEvent.Changed(true, List.of(there)));
        local.job(here);
        assertThat(heard)
                .containsExactly(
                        new Changes.RunnersChanged(), new Changes.JobChanged(there), new Changes.JobChanged(here));

        console.close();
        clock.advance(ClusterChanges.ANNOUNCE);
        sent.clear();
        relay.tick();
        assertThat(sent).as("no watcher left: silent").isEmpty();
    }
}
