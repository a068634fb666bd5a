package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.machine.OutputChunk;
import dev.baton.protocol.message.LogStream;
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

/** Live output in the sans-IO machine: streamed within the budget, a single dropped marker otherwise. */
class RunnerMachineLogTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final LogBudget SMALL = new LogBudget(16 * 1024, 16 * 1024, 4);

    private Instant now = T0;
    private RunnerMachine machine = RunnerMachine.fresh(MachineConfig.defaults("test"), new Random(1), SMALL);
    private ClaimedJob job;

    private List<Effect> in(Input input) {
        return machine.handle(input);
    }

    private static List<RunnerMessage.Log> logs(List<Effect> effects) {
        List<RunnerMessage.Log> out = new ArrayList<>();
        for (Effect e : effects)
            if (e instanceof Effect.Send s && s.message() instanceof RunnerMessage.Log l) out.add(l);
        return out;
    }

    private List<Effect> output(OutputChunk... chunks) {
        return in(new Input.Output(job.uuid(), List.of(chunks), now));
    }

    private static OutputChunk out(String text) {
        return OutputChunk.text(0, LogStream.STDOUT, text, text.length());
    }

    /** Connected, job running, every message so far acknowledged. */
    private void running() {
        in(new Input.Start(now));
        in(new Input.ConnectionOpened(now));
        job = Jobs.claimed(600);
        in(new Input.Received(new ServerMessage.Job(job)));
        in(new Input.Prepared(job.uuid()));
        in(new Input.Started(job.uuid(), now));
        ack(2); // preparing, running
    }

    private void ack(int n) {
        for (int i = 0; i < n; i++) in(new Input.Received(new ServerMessage.Ack(job.uuid())));
    }

    @Test
    void outputOfARunningJobIsStreamedInOrderWithSeqsFromOne() {
        running();
        List<RunnerMessage.Log> sent =
                logs(output(out("a\n"), OutputChunk.text(0, LogStream.STDERR, "warn\n", 5), out("b\n")));
        assertThat(sent)
                .containsExactly(
                        RunnerMessage.Log.text(job.uuid(), job.lease(), 1, LogStream.STDOUT, 0, "a\n"),
                        RunnerMessage.Log.text(job.uuid(), job.lease(), 2, LogStream.STDERR, 0, "warn\n"),
                        RunnerMessage.Log.text(job.uuid(), job.lease(), 3, LogStream.STDOUT, 0, "b\n"));
    }

    @Test
    void overTheRateTheLiveLogDropsToOneMarkerPerStreamAndResumesWhenTheBudgetAllows() {
        running();
        String big = "x".repeat(10_000);
        assertThat(logs(output(out(big)))).hasSize(1); // 10,000 of 16,384 tokens
        // The next two chunks do not fit: both are counted, nothing is sent, not even a marker yet.
        assertThat(logs(output(out(big), out(big)))).isEmpty();
        assertThat(logs(in(new Input.Tick(now))))
                .as("no marker while the budget is spent")
                .isEmpty();
        ack(2); // the log and the heartbeat
        // A second later the bucket has refilled: first the one marker for all dropped bytes, then the text.
        now = now.plusSeconds(1);
        List<RunnerMessage.Log> resumed = logs(output(out("next\n")));
        assertThat(resumed)
                .containsExactly(
                        RunnerMessage.Log.dropped(job.uuid(), job.lease(), 2, LogStream.STDOUT, 0, 20_000),
                        RunnerMessage.Log.text(job.uuid(), job.lease(), 3, LogStream.STDOUT, 0, "next\n"));
        // The terminal result still carries everything.
        var all = new IterationResult(0, big + big + big + "next\n", "", Map.of());
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(all))));
        assertThat(done).contains(new Effect.Send(new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(all))));
    }

    @Test
    void aSlowServerNeverQueuesMoreThanTheUnackedBound() {
        running();
        for (int i = 0; i < 4; i++)
            assertThat(logs(output(out("line " + i + "\n")))).hasSize(1);
        // Four unacknowledged: the fifth and sixth are dropped, not queued.
        assertThat(logs(output(out("line 4\n"), out("line 5\n")))).isEmpty();
        // Still no acks: the tick cannot announce the drop either (but heartbeats go on).
        List<Effect> tick = in(new Input.Tick(now = now.plusSeconds(1)));
        assertThat(logs(tick)).isEmpty();
        ack(5); // the four logs and the heartbeat
        // Output stopped: once the budget is full again, the tick announces the drop.
        List<RunnerMessage.Log> marker = logs(in(new Input.Tick(now = now.plusSeconds(1))));
        assertThat(marker)
                .containsExactly(RunnerMessage.Log.dropped(job.uuid(), job.lease(), 5, LogStream.STDOUT, 0, 14));
    }

    @Test
    void whileDisconnectedOutputIsCountedAndAnnouncedAfterTheReconnect() {
        running();
        in(new Input.ConnectionClosed(now, "network", false));
        assertThat(logs(output(out("lost\n"), OutputChunk.dropped(0, LogStream.STDERR, 100))))
                .isEmpty();
        in(new Input.ReconnectDue(now));
        List<Effect> reopened = in(new Input.ConnectionOpened(now));
        assertThat(logs(reopened)).as("logs are not resent from an outbox").isEmpty();
        ack(1); // running, resent on the new connection
        List<RunnerMessage.Log> markers = logs(in(new Input.Tick(now = now.plusSeconds(1))));
        assertThat(markers)
                .containsExactly(
                        RunnerMessage.Log.dropped(job.uuid(), job.lease(), 1, LogStream.STDOUT, 0, 5),
                        RunnerMessage.Log.dropped(job.uuid(), job.lease(), 2, LogStream.STDERR, 0, 100));
    }

    @Test
    void outputBeforeTheWorkloadRunsOrAfterTheJobEndedIsNeverSent() {
        in(new Input.Start(now));
        in(new Input.ConnectionOpened(now));
        job = Jobs.claimed(600);
        in(new Input.Received(new ServerMessage.Job(job)));
        in(new Input.Prepared(job.uuid()));
        // Output that raced ahead of Started: counted, announced once running.
        assertThat(logs(output(out("early\n")))).isEmpty();
        in(new Input.Started(job.uuid(), now));
        ack(2);
        assertThat(logs(output(out("later\n"))))
                .containsExactly(
                        RunnerMessage.Log.dropped(job.uuid(), job.lease(), 1, LogStream.STDOUT, 0, 6),
                        RunnerMessage.Log.text(job.uuid(), job.lease(), 2, LogStream.STDOUT, 0, "later\n"));
        in(new Input.Finished(
                job.uuid(), ExecutionResult.exited(List.of(new IterationResult(0, "early\nlater\n", "", Map.of())))));
        assertThat(output(out("straggler\n"))).isEmpty();
    }

    @Test
    void aStaleLeaseStopsStreaming() {
        running();
        in(new Input.Received(new ServerMessage.Stale(job.uuid(), job.lease(), "lease is no longer current")));
        assertThat(logs(output(out("after stale\n")))).isEmpty();
        assertThat(logs(in(new Input.Tick(now = now.plusSeconds(1))))).isEmpty();
    }
}
