package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store's side of several nodes (issue 14), on both dialects: node registration and
 * heartbeats, a node found dead, runners attached to a node and detached from it, the lost
 * deadlines that follow, and liveness written in batched statements.
 */
abstract class NodeStoreContract {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(90);

    Store store;
    Spec spec;
    Project project;
    int names;

    abstract Store openStore();

    @BeforeEach
    void open() {
        store = openStore();
        Organization org = store.organizations().createOrganization("Org", Slug.of("org"), PlanTier.TEAM, T0);
        project = store.organizations().createProject(org.id(), "P", Slug.of("p"), T0);
        spec = store.specs().createSpec("S", Slug.of("s"), Architecture.X86_64, 2, 1L << 30, 10L << 30, false, T0);
    }

    @AfterEach
    void close() {
        store.close();
    }

    Runner runner() {
        Runner r = store.runners()
                .createRunner(
                        "R" + (++names),
                        Slug.of("r-" + names),
                        RunnerKey.generate().hash(),
                        T0);
        store.specs().addRunnerSpec(r.id(), spec.id());
        return r;
    }

    Job claimed(Runner runner) {
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        project.organizationId(),
                        T0)
                .job();
        return TestClaims.claim(store, runner.id(), LeaseId.random(), T0, T0.plus(Duration.ofHours(1)))
                .orElseThrow();
    }

    List<JobUuid> lostAt(Instant now) {
        return store.liveness().sweepDue(Deadline.LOST, now, 100, Job::uuid);
    }

    @Test
    void aNodesAdvertisedAddressIsGivenOnlyWhileItLives() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        assertThat(store.nodes().liveNodeUrl("a", T0.minusSeconds(30)))
                .as("not advertised yet")
                .isEmpty();
        store.nodes().advertiseNode("a", "http://10.0.0.11:7701");
        assertThat(store.nodes().liveNodeUrl("a", T0.minusSeconds(30))).contains("http://10.0.0.11:7701");
        assertThat(store.nodes().liveNodeUrl("nobody", T0.minusSeconds(30))).isEmpty();
        assertThat(store.nodes().liveNodeUrl("a", T0.plusSeconds(1)))
                .as("no heartbeat since")
                .isEmpty();
        // A restart under the same id keeps the row's address until it advertises its own.
        store.nodes()
                .registerNode("a", T0.plusSeconds(10), T0.plusSeconds(10).plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(20));
        assertThat(store.nodes().liveNodeUrl("a", T0)).contains("http://10.0.0.11:7701");
        store.nodes().stopNode("a", T0.plusSeconds(11), T0.plusSeconds(11).plus(HEARTBEAT_TIMEOUT));
        assertThat(store.nodes().liveNodeUrl("a", T0)).as("stopped").isEmpty();
    }

    @Test
    void aRegisteredNodeHeartbeatsAndAnUnknownOneIsToldItIsNotRegistered() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        assertThat(store.nodes().recordLiveness("a", T0.plusSeconds(5), Map.of(), Map.of()))
                .isTrue();
        assertThat(store.nodes().recordLiveness("nobody", T0.plusSeconds(5), Map.of(), Map.of()))
                .isFalse();
        assertThat(store.nodes().listNodes()).singleElement().satisfies(n -> {
            assertThat(n.id()).isEqualTo("a");
            assertThat(n.lastHeartbeat()).isEqualTo(T0.plusSeconds(5));
            assertThat(n.stopped()).isNull();
        });
        assertThat(store.nodes().recordLiveness("a", T0.plusSeconds(3), Map.of(), Map.of()))
                .as("a late flush")
                .isTrue();
        assertThat(store.nodes().listNodes().getFirst().lastHeartbeat())
                .as("never goes back")
                .isEqualTo(T0.plusSeconds(5));
    }

    @Test
    void aSilentNodeIsFoundDeadByAnotherItsRunnersDetachedAndTheirJobsLostAHeartbeatTimeoutAfterItsLastHeartbeat() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        store.nodes().registerNode("b", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        Runner r = runner();
        store.nodes().attachRunner(r.id(), "a");
        Job job = claimed(r);
        Instant now = T0.plusSeconds(31);
        store.nodes().recordLiveness("b", now, Map.of(), Map.of());

        assertThat(store.nodes().expireNodes("a", now.minusSeconds(30), now, HEARTBEAT_TIMEOUT))
                .as("never itself")
                .isEmpty();
        assertThat(store.nodes().expireNodes("b", now.minusSeconds(30), now, HEARTBEAT_TIMEOUT))
                .containsExactly("a");
        assertThat(store.nodes().expireNodes("b", now.minusSeconds(30), now, HEARTBEAT_TIMEOUT))
                .as("once")
                .isEmpty();
        assertThat(store.nodes().runnerNode(r.id())).isEmpty();
        assertThat(store.nodes().listNodes())
                .filteredOn(n -> n.id().equals("a"))
                .singleElement()
                .satisfies(n -> assertThat(n.stopped()).isEqualTo(now));
        assertThat(store.nodes().recordLiveness("a", now, Map.of(), Map.of()))
                .as("a paused node learns it was found dead")
                .isFalse();

        assertThat(lostAt(T0.plus(HEARTBEAT_TIMEOUT).minusSeconds(1))).isEmpty();
        assertThat(lostAt(T0.plus(HEARTBEAT_TIMEOUT))).containsExactly(job.uuid());
        assertThat(lostAt(T0.plus(HEARTBEAT_TIMEOUT)))
                .as("a lost deadline is spent once swept")
                .isEmpty();
    }

    @Test
    void aRunnerThatComesBackBeforeItsLostDeadlineKeepsItsJob() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        Runner r = runner();
        store.nodes().attachRunner(r.id(), "a");
        Job job = claimed(r);
        store.nodes().detachRunner(r.id(), "a", T0.plusSeconds(90));
        store.nodes().detachRunner(r.id(), "a", T0.plusSeconds(120));
        store.nodes().attachRunner(r.id(), "b");
        assertThat(store.liveness().reattach(job.uuid(), job.lease()))
                .hasValueSatisfying(j -> assertThat(j.status()).isEqualTo(JobStatus.CLAIMED));
        assertThat(lostAt(T0.plusSeconds(200))).isEmpty();
        assertThat(store.liveness().reattach(job.uuid(), LeaseId.random()))
                .as("another lease")
                .isEmpty();
    }

    @Test
    void aDisconnectOnTheOldNodeDoesNotTouchARunnerAttachedElsewhere() {
        Runner r = runner();
        store.nodes().attachRunner(r.id(), "b");
        Job job = claimed(r);
        store.nodes().detachRunner(r.id(), "a", T0.plusSeconds(90));
        assertThat(store.nodes().runnerNode(r.id())).contains("b");
        assertThat(lostAt(T0.plusSeconds(200))).isEmpty();
        store.nodes().markRunnerLost(r.id(), T0.plusSeconds(10));
        assertThat(lostAt(T0.plusSeconds(10)))
                .as("a silent channel is lost at once")
                .containsExactly(job.uuid());
    }

    @Test
    void aNodeRestartedUnderItsIdAfterACrashTakesOverItsPreviousRunsRunners() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        Runner r = runner();
        store.nodes().attachRunner(r.id(), "a");
        Job job = claimed(r);
        store.nodes()
                .registerNode(
                        "a",
                        T0.plusSeconds(5),
                        T0.plusSeconds(95),
                        T0.plusSeconds(5).minusSeconds(30));
        assertThat(store.nodes().runnerNode(r.id())).isEmpty();
        assertThat(lostAt(T0.plusSeconds(94))).isEmpty();
        assertThat(lostAt(T0.plusSeconds(95))).containsExactly(job.uuid());
    }

    @Test
    void aCleanStopLeavesTheRunnersAHeartbeatTimeoutToReconnectElsewhere() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        Runner r = runner();
        store.nodes().attachRunner(r.id(), "a");
        Job job = claimed(r);
        store.nodes().stopNode("a", T0.plusSeconds(1), T0.plusSeconds(91));
        assertThat(store.nodes().listNodes().getFirst().stopped()).isEqualTo(T0.plusSeconds(1));
        assertThat(store.nodes().expireNodes("b", T0.plusSeconds(100), T0.plusSeconds(100), HEARTBEAT_TIMEOUT))
                .as("stopped is not dead")
                .isEmpty();
        assertThat(lostAt(T0.plusSeconds(91))).containsExactly(job.uuid());
    }

    @Test
    void livenessOfThousandsOfRunnersIsWrittenInOneFlushAndOnlyInFlightJobsAreTouched() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        Map<Long, Instant> runners = new HashMap<>();
        Runner holder = runner();
        Job job = claimed(holder);
        Instant t = T0.plusSeconds(7);
        for (int i = 0; i < 2500; i++) {
            Runner r = store.runners().createRunner("bulk " + i, Slug.of("bulk-" + i), "0".repeat(64), T0);
            runners.put(r.id(), t);
        }
        runners.put(holder.id(), t);
        assertThat(store.nodes().recordLiveness("a", t, Map.of(job.uuid(), t, JobUuid.random(), t), runners))
                .isTrue();
        assertThat(store.runners().listRunners(new RunnerFilter(null, null, false)))
                .allSatisfy(r -> assertThat(r.lastHeartbeat()).isEqualTo(t));
        assertThat(store.runs().findJob(job.uuid()).orElseThrow().lastHeartbeat())
                .isEqualTo(t);
        store.transitions().cancel(job.uuid(), null, "user", t.plusSeconds(1));
        store.nodes().recordLiveness("a", t.plusSeconds(5), Map.of(job.uuid(), t.plusSeconds(5)), Map.of());
        assertThat(store.runs().findJob(job.uuid()).orElseThrow().lastHeartbeat())
                .as("not in flight: untouched")
                .isEqualTo(t);
    }

    @Test
    void clusterCountsComeFromTheStore() {
        store.nodes().registerNode("a", T0, T0.plus(HEARTBEAT_TIMEOUT), T0.minusSeconds(30));
        store.nodes()
                .registerNode(
                        "b", T0.minusSeconds(100), T0, T0.minusSeconds(100).minusSeconds(30));
        Runner r = runner();
        store.nodes().attachRunner(r.id(), "a");
        claimed(r);
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        project.organizationId(),
                        T0)
                .job();
        ClusterCounts c = store.nodes().clusterCounts("a", T0.minusSeconds(30));
        assertThat(c).isEqualTo(new ClusterCounts(1, 1, 1, 1, 1));
    }
}
