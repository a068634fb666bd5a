package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.Architecture;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@code baton runner up --ephemeral} (issue 43): one job, reported, then exit 0; nothing else is asked for or taken. */
class RunnerMachineSingleJobTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final IterationResult OK = new IterationResult(0, "hi\n", "", Map.of());

    private final Instant now = T0;
    private final RunnerMachine machine =
            RunnerMachine.fresh(MachineConfig.defaults("test").withSingleJob(true), new Random(1));

    private List<Effect> in(Input input) {
        return machine.handle(input);
    }

    private static List<RunnerMessage> sent(List<Effect> effects) {
        List<RunnerMessage> out = new ArrayList<>();
        for (Effect e : effects) if (e instanceof Effect.Send s) out.add(s.message());
        return out;
    }

    private List<Effect> connected() {
        in(new Input.Start(now));
        return in(new Input.ConnectionOpened(now));
    }

    @Test
    void takesOneJobReportsItAndExitsOnceItIsAcknowledged() {
        assertThat(sent(connected())).singleElement().isInstanceOf(RunnerMessage.Ready.class);
        ClaimedJob job = Jobs.claimed(60);
        in(new Input.Received(new ServerMessage.Job(job)));
        assertThat(machine.isQuiet()).isTrue();
        in(new Input.Prepared(job.uuid()));
        in(new Input.Started(job.uuid(), now));
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        assertThat(sent(done)).containsExactly(new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(OK)));
        assertThat(done).noneMatch(e -> e instanceof Effect.Exit); // not before the server has it
        // acks: preparing, running, completed
        in(new Input.Received(new ServerMessage.Ack(job.uuid())));
        in(new Input.Received(new ServerMessage.Ack(job.uuid())));
        List<Effect> acked = in(new Input.Received(new ServerMessage.Ack(job.uuid())));
        assertThat(sent(acked)).noneMatch(m -> m instanceof RunnerMessage.Ready);
        assertThat(acked).contains(new Effect.Exit(RunnerMachine.EXIT_OK, "single-job runner: its job is reported"));
    }

    @Test
    void aSecondOfferIsDeclinedAndSignalsDoNotMakeItAskAgain() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        in(new Input.Received(new ServerMessage.Job(job)));
        ClaimedJob second = Jobs.claimed(60);
        assertThat(sent(in(new Input.Received(new ServerMessage.Job(second)))))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Declined.class, d -> assertThat(d.job()).isEqualTo(second.uuid()));
        assertThat(sent(in(new Input.SignalReceived(Input.Signal.RESUME, now)))).isEmpty();
        assertThat(machine.isQuiet()).isTrue();
        assertThat(machine.hasExited()).isFalse(); // its job still runs
    }

    @Test
    void aJobItCannotTakeIsDeclinedAndThatIsItsJob() {
        connected();
        Architecture other =
                Architecture.ofHost().orElseThrow() == Architecture.X86_64 ? Architecture.AARCH64 : Architecture.X86_64;
        ClaimedJob job =
                Jobs.claimed(Jobs.spec(other, 1, 256L << 20, false), Jobs.command(List.of("true"), 60, 1, List.of()));
        List<Effect> out = in(new Input.Received(new ServerMessage.Job(job)));
        assertThat(sent(out)).singleElement().isInstanceOf(RunnerMessage.Declined.class);
        assertThat(out).contains(new Effect.Exit(RunnerMachine.EXIT_OK, "single-job runner: its job is reported"));
    }

    @Test
    void oneSlotWhateverTheSlotsBefore() {
        assertThat(MachineConfig.defaults("t").withSlots(4).withSingleJob(true).slots())
                .isEqualTo(1);
        assertThat(sent(connected()))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class, r -> assertThat(r.slots()).isEqualTo(1));
        assertThat(machine.hasExited()).isFalse();
    }
}
