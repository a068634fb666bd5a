package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 40, in the sans-IO machine: a result is cut to the server's limit when its welcome says
 * it, cut and resent when the server refuses it as too big (close 1009) however often that
 * happens, and not resent while a large result is still being written.
 */
class RunnerMachineMessageLimitTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final String BIG = "x".repeat(200_000);

    private Instant now = T0;
    private RunnerMachine machine;

    private List<Effect> in(Input input) {
        return machine.handle(input);
    }

    private static List<RunnerMessage> sent(List<Effect> effects) {
        List<RunnerMessage> out = new ArrayList<>();
        for (Effect e : effects) if (e instanceof Effect.Send s) out.add(s.message());
        return out;
    }

    private static RunnerMessage.Terminal result(List<Effect> effects) {
        return sent(effects).stream()
                .filter(RunnerMessage.Terminal.class::isInstance)
                .map(RunnerMessage.Terminal.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no result sent in " + effects));
    }

    private void connected(MachineConfig config) {
        machine = RunnerMachine.fresh(config, new Random(1));
        in(new Input.Start(now));
        in(new Input.ConnectionOpened(now));
    }

    /** Runs a job to its end with three iterations of 200 kB stdout each; returns the effects of the end. */
    private List<Effect> finishBigJob(ClaimedJob job) {
        in(new Input.Received(new ServerMessage.Job(job)));
        in(new Input.Prepared(job.uuid()));
        in(new Input.Started(job.uuid(), now));
        List<IterationResult> three = List.of(
                new IterationResult(0, BIG, "", Map.of()),
                new IterationResult(0, BIG, "", Map.of()),
                new IterationResult(0, BIG, "", Map.of()));
        return in(new Input.Finished(job.uuid(), ExecutionResult.exited(three)));
    }

    @Test
    void theWelcomesMessageLimitCutsResultsBeforeTheyAreSent() {
        connected(MachineConfig.defaults("test").withMaxMessageBytes(8 << 20));
        in(new Input.Received(new ServerMessage.Welcome("r", "r", List.of("host"), 100_000L)));
        RunnerMessage.Terminal sent = result(finishBigJob(Jobs.claimed(60)));
        assertThat(MessageBudget.size(sent)).isLessThanOrEqualTo(100_000);
        assertThat(sent).isInstanceOfSatisfying(RunnerMessage.Completed.class, c -> {
            assertThat(c.results()).hasSize(3);
            assertThat(c.results())
                    .allSatisfy(r -> assertThat(r.stdout()).startsWith("xxx").endsWith(MessageBudget.MARKER));
        });
    }

    @Test
    void aResultRefusedAsTooBigGoesAgainAtHalfItsSizeAsOftenAsTheServerRefusesIt() {
        // Two sends at most: the refusals below would drop the result if they counted.
        connected(MachineConfig.defaults("test").withMaxMessageBytes(8 << 20).withMaxSends(2));
        ClaimedJob job = Jobs.claimed(60);
        RunnerMessage.Terminal first = result(finishBigJob(job));
        int size = MessageBudget.size(first);
        assertThat(size).isGreaterThan(600_000);

        RunnerMessage.Terminal last = first;
        for (int refusal = 0; refusal < 4; refusal++) {
            List<Effect> closed = in(new Input.ConnectionClosed(now, "closed by server (1009)", false, false, true));
            RunnerMessage.Terminal cut = closed.stream()
                    .filter(Effect.WriteOutbox.class::isInstance)
                    .map(e -> ((Effect.WriteOutbox) e).message())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the cut result is persisted before it is resent"));
            now = now.plusSeconds(1);
            in(new Input.ReconnectDue(now));
            RunnerMessage.Terminal resent = result(in(new Input.ConnectionOpened(now)));
            assertThat(resent).isEqualTo(cut);
            assertThat(MessageBudget.size(resent)).isLessThanOrEqualTo(MessageBudget.size(last) / 2);
            assertThat(((RunnerMessage.Completed) resent).results())
                    .hasSize(3)
                    .allSatisfy(r -> assertThat(r.stdout()).endsWith(MessageBudget.MARKER));
            last = resent;
        }
        assertThat(machine.pendingResults()).isOne();
        // Once acknowledged, it is gone: ready is the only other message on this connection.
        in(new Input.Received(new ServerMessage.Ack(null)));
        in(new Input.Received(new ServerMessage.Ack(job.uuid())));
        assertThat(machine.pendingResults()).isZero();
    }

    @Test
    void theAckWaitStartsOnceTheResultIsWrittenAndLastsLongerForALongWrite() {
        connected(MachineConfig.defaults("test"));
        ClaimedJob job = Jobs.claimed(60);
        finishBigJob(job);
        // the driver took 9 s to write it (a large result on a slow link)
        now = now.plusSeconds(9);
        in(new Input.ResultWritten(job.uuid(), now));
        now = now.plusSeconds(15);
        assertThat(sent(in(new Input.Tick(now)))).noneMatch(RunnerMessage.Terminal.class::isInstance);
        now = now.plusSeconds(5);
        assertThat(sent(in(new Input.Tick(now)))).anyMatch(RunnerMessage.Terminal.class::isInstance);
    }

    @Test
    void aWaitingResultIsCutToTheLimitAWelcomeSaidOnceItGoesAgain() {
        connected(MachineConfig.defaults("test").withMaxMessageBytes(8 << 20));
        RunnerMessage.Terminal first = result(finishBigJob(Jobs.claimed(60)));
        assertThat(MessageBudget.size(first)).isGreaterThan(600_000);
        // The welcome says 100 kB while the result is on the wire; the server breaks the connection
        // (its 1009 lost with it, as happens when it closes in the middle of a large message).
        in(new Input.Received(new ServerMessage.Welcome("r", "r", List.of("host"), 100_000L)));
        in(new Input.ConnectionClosed(now, "connection error: Broken pipe", false));
        now = now.plusSeconds(1);
        in(new Input.ReconnectDue(now));
        List<Effect> opened = in(new Input.ConnectionOpened(now));
        RunnerMessage.Terminal resent = result(opened);
        assertThat(MessageBudget.size(resent)).isLessThanOrEqualTo(100_000);
        assertThat(opened).contains(new Effect.WriteOutbox(resent, 2)); // persisted as cut, before it is sent
    }
}
