package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.NoiseFigure;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The server's {@code calibrate} (decision 0062): the calibration runs only once no job is held and
 * no {@code ready} is outstanding, no job is asked for from the request until it has run, and the
 * runner asks for work again after sending it.
 */
class RunnerMachineCalibrateTest {
    private static final Instant T0 = Instant.parse("2026-11-29T18:00:00Z");
    private static final RunnerMessage.Calibration MEASURED =
            new RunnerMessage.Calibration(T0, List.of(new NoiseFigure("cpu", 200, 2_000_000, 0.012)), null);

    private final RunnerMachine machine = RunnerMachine.fresh(MachineConfig.defaults("test"), new Random(1));
    private Instant now = T0;

    private List<Effect> in(Input input) {
        return machine.handle(input);
    }

    private List<Effect> received(ServerMessage message) {
        return in(new Input.Received(message));
    }

    private List<Effect> tick() {
        now = now.plusSeconds(1);
        return in(new Input.Tick(now));
    }

    private static List<RunnerMessage> sent(List<Effect> effects) {
        return effects.stream()
                .filter(Effect.Send.class::isInstance)
                .map(e -> ((Effect.Send) e).message())
                .toList();
    }

    private static boolean calibrates(List<Effect> effects) {
        return effects.stream().anyMatch(Effect.Calibrate.class::isInstance);
    }

    /** Started and connected: its first ready is outstanding. */
    private void connected() {
        in(new Input.Start(T0));
        assertThat(sent(in(new Input.ConnectionOpened(T0)))).anyMatch(RunnerMessage.Ready.class::isInstance);
    }

    @Test
    void anIdleRunnerMeasuresOnceItsReadyIsAnsweredAndAsksForNoJobMeanwhile() {
        connected();
        // A job could still come for the outstanding ready: not yet.
        assertThat(received(new ServerMessage.Calibrate())).isEmpty();
        assertThat(calibrates(tick())).isFalse();

        List<Effect> noJob = received(new ServerMessage.NoJob());
        assertThat(calibrates(noJob)).isTrue();
        assertThat(sent(noJob)).noneMatch(RunnerMessage.Ready.class::isInstance);
        // Measuring: no second calibration, no ready, and the agent is not at rest (ticks every second).
        assertThat(calibrates(tick())).isFalse();
        assertThat(sent(tick())).noneMatch(RunnerMessage.Ready.class::isInstance);
        assertThat(machine.tickWithin(Duration.ofSeconds(1), Duration.ofSeconds(10)))
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(received(new ServerMessage.Calibrate())).isEmpty();

        List<Effect> done = in(new Input.Calibrated(MEASURED));
        assertThat(sent(done)).first().isEqualTo(MEASURED);
        assertThat(sent(done)).last().isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void aRunnerHoldingAJobMeasuresOnlyAfterItsResultIsAcknowledged() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        received(new ServerMessage.Job(job));
        assertThat(calibrates(received(new ServerMessage.Calibrate()))).isFalse();
        in(new Input.Prepared(job.uuid()));
        in(new Input.Started(job.uuid(), now));
        assertThat(calibrates(tick())).isFalse();
        in(new Input.Finished(
                job.uuid(), ExecutionResult.exited(List.of(new IterationResult(0, "hi\n", "", Map.of())))));
        assertThat(calibrates(tick())).isFalse();

        boolean askedForWork = false;
        for (int i = 0; i < 10 && machine.pendingResults() > 0; i++)
            askedForWork |= sent(received(new ServerMessage.Ack(job.uuid()))).stream()
                    .anyMatch(RunnerMessage.Ready.class::isInstance);
        assertThat(machine.pendingResults()).isZero();
        assertThat(askedForWork)
                .as("no ready between the job and the calibration")
                .isFalse();
        assertThat(calibrates(tick())).isTrue();
    }

    @Test
    void aCalibrationThatFailedSendsNothingAndTheRunnerAsksForWorkAgain() {
        connected();
        received(new ServerMessage.Calibrate());
        assertThat(calibrates(received(new ServerMessage.NoJob()))).isTrue();
        assertThat(sent(in(new Input.Calibrated(null)))).singleElement().isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void aJobOfferedWhileMeasuringIsDeclined() {
        connected();
        received(new ServerMessage.Calibrate());
        received(new ServerMessage.NoJob());
        ClaimedJob job = Jobs.claimed(60);
        assertThat(sent(received(new ServerMessage.Job(job))))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Declined.class,
                        d -> assertThat(d.reason()).contains("measuring its noise"));
        assertThat(machine.activeJobs()).isZero();
    }
}
