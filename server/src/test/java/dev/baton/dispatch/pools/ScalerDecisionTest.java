package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.PoolSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The scaler's decision alone (issue 43): a queue in, actions out, no store, no clock but the queue's. */
class ScalerDecisionTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    private static Pool pool(int minIdle, int max, Instant backoffUntil) {
        return new Pool(
                1,
                UUID.randomUUID(),
                "p",
                new PoolSettings(1, Map.of(), minIdle, max, Duration.ofSeconds(60), Duration.ofSeconds(30), "x", "{}"),
                backoffUntil,
                backoffUntil == null ? null : "quota",
                0,
                T0,
                T0);
    }

    private static MachineView machine(long id, PoolMachineState state, Long job, RunnerPhase phase) {
        return new MachineView(
                new PoolMachine(
                        id, UUID.randomUUID(), 1, state, "m-" + id, 10 + id, job, "a", null, T0, null, null, null, T0),
                phase,
                job);
    }

    @Test
    void startsOneMachinePerWaitingJobUpToMaxThenMinIdle() {
        assertThat(ScalerDecision.decide(new PoolQueue(pool(1, 3, null), List.of(), List.of(7L, 8L), T0)))
                .containsExactly(new ScalerAction.Start(7L), new ScalerAction.Start(8L), new ScalerAction.Start(null));
        assertThat(ScalerDecision.decide(new PoolQueue(pool(1, 2, null), List.of(), List.of(7L, 8L, 9L), T0)))
                .containsExactly(new ScalerAction.Start(7L), new ScalerAction.Start(8L));
    }

    @Test
    void aMachinePastItsBootTimeoutIsStoppedFailedAndItsJobStartedAgain() {
        MachineView late = machine(1, PoolMachineState.STARTING, 7L, RunnerPhase.NOT_CONNECTED);
        assertThat(ScalerDecision.decide(new PoolQueue(pool(0, 2, null), List.of(late), List.of(), T0.plusSeconds(29))))
                .isEmpty();
        List<ScalerAction> actions =
                ScalerDecision.decide(new PoolQueue(pool(0, 2, null), List.of(late), List.of(), T0.plusSeconds(30)));
        assertThat(actions).hasSize(2);
        assertThat(actions.get(0))
                .isInstanceOfSatisfying(
                        ScalerAction.Stop.class, s -> assertThat(s.end()).isEqualTo(PoolMachineState.FAILED));
        assertThat(actions.get(1)).isEqualTo(new ScalerAction.Start(7L));
    }

    @Test
    void noStartWhileTheProviderBacksOffAndTheReasonSaysWhy() {
        assertThat(ScalerDecision.decide(new PoolQueue(pool(0, 2, T0.plusSeconds(5)), List.of(), List.of(7L), T0)))
                .containsExactly(new ScalerAction.Blocked("quota"));
        assertThat(ScalerDecision.decide(
                        new PoolQueue(pool(0, 2, T0.plusSeconds(5)), List.of(), List.of(7L), T0.plusSeconds(5))))
                .containsExactly(new ScalerAction.Start(7L));
    }
}
