package dev.baton.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.protocol.value.Slug;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 41's store parts on both dialects: the machines a runner connected as and the one each
 * attempt ran on, and fleet rolls — one at a time, their lease held by one node until it expires,
 * so that another node resumes a roll whose node died.
 */
abstract class FleetStoreContract {
    static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    static final RunnerHost BOX =
            new RunnerHost("linux", "x86_64", "1.0.0", "bench-1", 4242L, T0.minusSeconds(60), "10.0.0.7");

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

    Job claimed(Runner runner, LeaseId lease) {
        store.runs()
                .createRun(
                        new NewReport(project.id(), "main", "box", "json", null, null, null),
                        new NewJob(spec.id(), "10.0.0.1", StoreContract.config(project), 60, 200, RetryPolicy.NONE),
                        project.organizationId(),
                        T0)
                .job();
        return TestClaims.claim(store, runner.id(), lease, T0, T0.plus(Duration.ofHours(1)))
                .orElseThrow();
    }

    @Test
    void aRunnersMachineIsKeptAndARejoinAtAnotherVersionIsANewOneSeenLater() {
        Runner r = runner();
        assertThat(store.runners().latestMachine(r.id())).isEmpty();
        KnownMachine first = store.runners().recordMachine(r.id(), BOX, T0);
        assertThat(store.runners().latestMachine(r.id())).contains(first);
        assertThat(first.host()).isEqualTo(BOX);
        // A reconnect of the same process from the same address is the same machine.
        assertThat(store.runners().recordMachine(r.id(), BOX, T0.plusSeconds(5)))
                .isEqualTo(first);
        RunnerHost updated =
                new RunnerHost("linux", "x86_64", "2.0.0", "bench-1", 5151L, T0.plusSeconds(30), "10.0.0.7");
        KnownMachine second = store.runners().recordMachine(r.id(), updated, T0.plusSeconds(40));
        assertThat(second.id()).isNotEqualTo(first.id());
        assertThat(second.seen()).isEqualTo(T0.plusSeconds(40));
        assertThat(store.runners().latestMachines()).containsEntry(r.id(), second);
    }

    @Test
    void anAttemptRecordsTheMachineThatClaimedItOrTheOneARouterNames() {
        Runner router = runner();
        KnownMachine own = store.runners().recordMachine(router.id(), BOX, T0);
        LeaseId lease = LeaseId.random();
        Job job = claimed(router, lease);
        assertThat(store.runners().attemptMachines(job.id())).containsEntry(1, own);

        RunnerHost behind =
                new RunnerHost("linux", "aarch64", "1.0.0", "arm-3", 77L, T0.minusSeconds(9), "192.168.1.3");
        assertThat(store.runners().recordAttemptMachine(router.id(), job.uuid(), lease, behind, T0.plusSeconds(1)))
                .isTrue();
        assertThat(store.runners().attemptMachines(job.id()).get(1).host()).isEqualTo(behind);
        assertThat(store.runners().latestMachine(router.id()))
                .as("the router's own stays its latest")
                .contains(own);
        // A stale or unknown lease records nothing.
        assertThat(store.runners().recordAttemptMachine(router.id(), job.uuid(), LeaseId.random(), behind, T0))
                .isFalse();
        assertThat(store.runners().recordAttemptMachine(router.id(), new JobUuid(UUID.randomUUID()), lease, behind, T0))
                .isFalse();
    }

    @Test
    void oneRollAtATimeDrivenByOneNodeUntilItsLeaseExpires() {
        Runner a = runner();
        Runner b = runner();
        NewRoll asked = new NewRoll(
                "all", "2.0.0", "https://x.example/b.jar", "c".repeat(64), 1, Duration.ofMinutes(5), "admin");
        Roll roll = store.rolls().createRoll(asked, List.of(a.id(), b.id()), T0);
        assertThat(roll.isRunning()).isTrue();
        assertThat(roll.steps()).extracting(RollStep::runnerId).containsExactly(a.id(), b.id());
        assertThat(roll.steps()).allMatch(s -> RollStep.PENDING.equals(s.state()));
        assertThatThrownBy(() -> store.rolls().createRoll(asked, List.of(b.id()), T0))
                .isInstanceOfSatisfying(
                        StoreException.class, e -> assertThat(e.reason()).isEqualTo(StoreException.Reason.CONFLICT));

        assertThat(store.rolls().leaseRunningRoll("node-1", T0, T0.plusSeconds(30)))
                .isPresent();
        assertThat(store.rolls().leaseRunningRoll("node-2", T0.plusSeconds(10), T0.plusSeconds(40)))
                .as("node-1 holds it")
                .isEmpty();
        store.rolls().updateStep(roll.id(), 0, RollStep.UPDATING, "1.0.0", T0, null, "told to update", T0);
        // node-1 dies: once its lease ran out, node-2 resumes the roll where it stood.
        Roll resumed = store.rolls()
                .leaseRunningRoll("node-2", T0.plusSeconds(31), T0.plusSeconds(61))
                .orElseThrow();
        assertThat(resumed.steps().get(0).state()).isEqualTo(RollStep.UPDATING);
        assertThat(resumed.steps().get(0).started()).isEqualTo(T0);
        assertThat(resumed.steps().get(0).fromVersion()).isEqualTo("1.0.0");
        assertThat(store.rolls().leaseRunningRoll("node-1", T0.plusSeconds(32), T0.plusSeconds(62)))
                .isEmpty();

        assertThat(store.rolls().endRoll(roll.id(), Roll.FAILED, "runner r-1 did not rejoin", T0.plusSeconds(40)))
                .isTrue();
        assertThat(store.rolls().endRoll(roll.id(), Roll.SUCCEEDED, null, T0.plusSeconds(41)))
                .as("ended once")
                .isFalse();
        assertThat(store.rolls().updateStep(roll.id(), 1, RollStep.DONE, null, T0, T0, "late", T0))
                .as("an ended roll stays")
                .isFalse();
        Roll ended = store.rolls().findRoll(roll.uuid()).orElseThrow();
        assertThat(ended.state()).isEqualTo(Roll.FAILED);
        assertThat(ended.reason()).isEqualTo("runner r-1 did not rejoin");
        assertThat(ended.ended()).isEqualTo(T0.plusSeconds(40));
        assertThat(store.rolls().leaseRunningRoll("node-2", T0.plusSeconds(42), T0.plusSeconds(72)))
                .isEmpty();
        Roll next = store.rolls().createRoll(asked, List.of(b.id()), T0.plusSeconds(50));
        assertThat(store.rolls().listRolls(10)).extracting(Roll::uuid).containsExactly(next.uuid(), roll.uuid());
    }
}
