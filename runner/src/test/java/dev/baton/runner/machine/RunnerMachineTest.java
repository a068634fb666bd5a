package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.CapabilityLabels;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.value.Architecture;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The sans-IO machine, driven by inputs only: no sockets, no processes, no clock. */
class RunnerMachineTest {
    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final IterationResult OK = new IterationResult(0, "hi\n", "", Map.of());

    private Instant now = T0;
    private RunnerMachine machine = RunnerMachine.fresh(MachineConfig.defaults("test"), new Random(1));

    private List<Effect> in(Input input) {
        return machine.handle(input);
    }

    private List<Effect> received(ServerMessage m) {
        return in(new Input.Received(m));
    }

    private List<Effect> tick(Duration d) {
        now = now.plus(d);
        return in(new Input.Tick(now));
    }

    private static List<RunnerMessage> sent(List<Effect> effects) {
        List<RunnerMessage> out = new ArrayList<>();
        for (Effect e : effects) if (e instanceof Effect.Send s) out.add(s.message());
        return out;
    }

    private static <T> List<T> only(List<Effect> effects, Class<T> type) {
        return effects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    /** Starts and connects; returns the effects of the connection (the first ready). */
    private List<Effect> connected() {
        assertThat(in(new Input.Start(now))).containsExactly(new Effect.Connect());
        return in(new Input.ConnectionOpened(now));
    }

    /** Takes a job through prepare and start. */
    private void runJob(ClaimedJob job) {
        received(new ServerMessage.Job(job));
        in(new Input.Prepared(job.uuid()));
        in(new Input.Started(job.uuid(), now));
    }

    @Test
    void readyCarriesTheRunnersOwnLabelsAndNoneWhenItHasNone() {
        assertThat(sent(connected()))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class, r -> assertThat(r.labels()).isNull());
        machine = RunnerMachine.fresh(MachineConfig.defaults("test").withLabels(Map.of("disk", "nvme")), new Random(1));
        assertThat(sent(connected()))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class, r -> assertThat(r.labels()).isEqualTo(Map.of("disk", "nvme")));
    }

    /** Decision 0076: the executor's capability travels as a label; without it the whole set is still sent. */
    @Test
    void readyCarriesTheBaselineImageLabelOnlyFromAnExecutorThatRunsOne() {
        var runc = RunnerCapabilities.executor("runc").withBaselineImage(true);
        var process = RunnerCapabilities.executor("process").withBaselineImage(false);
        machine = RunnerMachine.fresh(
                MachineConfig.defaults("test").withCapabilities(runc).withLabels(Map.of("disk", "nvme")),
                new Random(1));
        assertThat(sent(connected()))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class,
                        r -> assertThat(r.labels())
                                .isEqualTo(Map.of("disk", "nvme", CapabilityLabels.BASELINE_IMAGE, "true")));
        // An operator's label of that key does not make a process runner one: it is dropped, and an
        // empty set is sent so that an earlier report of it is cleared.
        machine = RunnerMachine.fresh(
                MachineConfig.defaults("test")
                        .withCapabilities(process)
                        .withLabels(Map.of(CapabilityLabels.BASELINE_IMAGE, "true")),
                new Random(1));
        assertThat(sent(connected()))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class, r -> assertThat(r.labels()).isEmpty());
    }

    @Test
    void fullJobFlow() {
        List<Effect> open = connected();
        assertThat(sent(open)).singleElement().isInstanceOfSatisfying(RunnerMessage.Ready.class, r -> {
            assertThat(r.slots()).isEqualTo(1);
            assertThat(r.pollTimeout()).isEqualTo(30);
            assertThat(r.version()).isEqualTo("test");
            assertThat(r.arch()).isEqualTo(Architecture.ofHost().orElseThrow().wireName());
        });

        ClaimedJob job = Jobs.claimed(60);
        List<Effect> onJob = received(new ServerMessage.Job(job));
        assertThat(onJob)
                .containsExactly(
                        new Effect.WriteInflight(new InflightRecord(job.uuid(), job.lease(), null)),
                        new Effect.Send(new RunnerMessage.Preparing(job.uuid(), job.lease(), "claimed")),
                        new Effect.StartPrepare(job));

        assertThat(in(new Input.PrepareProgress(job.uuid(), "pulling 1/2")))
                .containsExactly(new Effect.Send(new RunnerMessage.Preparing(job.uuid(), job.lease(), "pulling 1/2")));
        // While preparing, the tick keeps the claim alive with preparing, not heartbeat.
        assertThat(sent(tick(Duration.ofSeconds(1))))
                .containsExactly(new RunnerMessage.Preparing(job.uuid(), job.lease(), "pulling 1/2"));
        assertThat(in(new Input.Prepared(job.uuid()))).containsExactly(new Effect.StartWorkload(job.uuid()));
        // running only when the workload really starts
        List<Effect> started = in(new Input.Started(job.uuid(), now));
        assertThat(sent(started)).containsExactly(new RunnerMessage.Running(job.uuid(), job.lease()));
        assertThat(only(started, Effect.WriteInflight.class))
                .singleElement()
                .satisfies(w -> assertThat(w.record().hasStarted()).isTrue());

        assertThat(sent(tick(Duration.ofSeconds(1))))
                .containsExactly(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));

        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        var completed = new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(OK));
        // written before sent; no ready before the ack
        assertThat(done)
                .containsExactly(
                        new Effect.DeleteInflight(job.uuid()),
                        new Effect.WriteOutbox(completed, 1),
                        new Effect.Send(completed));

        // acks: preparing, preparing, preparing(tick), running, heartbeat, completed — in order
        for (int i = 0; i < 5; i++)
            assertThat(received(new ServerMessage.Ack(job.uuid()))).isEmpty();
        List<Effect> acked = received(new ServerMessage.Ack(job.uuid()));
        assertThat(acked.getFirst()).isEqualTo(new Effect.DeleteOutbox(job.uuid()));
        assertThat(sent(acked)).singleElement().isInstanceOf(RunnerMessage.Ready.class);
        assertThat(machine.pendingResults()).isZero();
    }

    @Test
    void resultsAreCutToFitTheMessageLimitKeepingEveryIteration() {
        machine = RunnerMachine.fresh(MachineConfig.defaults("test").withMaxMessageBytes(100_000), new Random(1));
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        String big = "x".repeat(60_000);
        List<IterationResult> three = List.of(
                new IterationResult(0, big, "e", Map.of("f", big)),
                new IterationResult(0, big, big, Map.of()),
                new IterationResult(0, "small", "", Map.of()));
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(three)));
        RunnerMessage.Completed c = (RunnerMessage.Completed) sent(done).getFirst();
        assertThat(dev.baton.protocol.message.Wire.encode(c).length()).isLessThanOrEqualTo(100_000);
        assertThat(c.results()).hasSize(3);
        assertThat(c.results().get(0).stdout()).endsWith(MessageBudget.MARKER);
        assertThat(c.results().get(0).output().get("f")).endsWith(MessageBudget.MARKER);
        assertThat(c.results().get(2).stdout()).isEqualTo("small");
        // what is persisted is what is sent
        assertThat(only(done, Effect.WriteOutbox.class).getFirst().message()).isEqualTo(c);
    }

    @Test
    void heldImagesGoWithEveryReadyAndWithOneHeartbeatWhenTheyChange() {
        var a = dev.baton.protocol.value.ImageDigest.of("sha256:" + "a".repeat(64));
        var b = dev.baton.protocol.value.ImageDigest.of("sha256:" + "b".repeat(64));
        assertThat(in(new Input.Start(now))).containsExactly(new Effect.Connect());
        in(new Input.ImagesHeld(List.of(a)));
        RunnerMessage.Ready ready = (RunnerMessage.Ready) sent(in(new Input.ConnectionOpened(now))).stream()
                .filter(m -> m instanceof RunnerMessage.Ready)
                .findFirst()
                .orElseThrow();
        assertThat(ready.images()).containsExactly(a);
        // Already told by the ready: the heartbeat says nothing about images.
        assertThat(sent(tick(Duration.ofSeconds(1)))).containsExactly(new RunnerMessage.Heartbeat(null, null));
        // The cache changed while waiting: the next heartbeat carries the list once.
        in(new Input.ImagesHeld(List.of(b, a)));
        assertThat(sent(tick(Duration.ofSeconds(1))))
                .containsExactly(new RunnerMessage.Heartbeat(null, null, List.of(b, a)));
        assertThat(sent(tick(Duration.ofSeconds(1)))).containsExactly(new RunnerMessage.Heartbeat(null, null));
        // The same list again is no change.
        in(new Input.ImagesHeld(List.of(b, a)));
        assertThat(sent(tick(Duration.ofSeconds(1)))).containsExactly(new RunnerMessage.Heartbeat(null, null));
    }

    @Test
    void aRunnerWithoutAnImageCacheReportsNoImages() {
        RunnerMessage.Ready ready = (RunnerMessage.Ready) sent(connected()).stream()
                .filter(m -> m instanceof RunnerMessage.Ready)
                .findFirst()
                .orElseThrow();
        assertThat(ready.images()).isNull();
    }

    @Test
    void idleTickSendsBareHeartbeat() {
        connected();
        assertThat(sent(tick(Duration.ofSeconds(1)))).containsExactly(new RunnerMessage.Heartbeat(null, null));
    }

    @Test
    void nonZeroExitIsFailedWithTheIteration() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        var bad = new IterationResult(3, "", "boom", Map.of());
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK, bad))));
        assertThat(sent(done)).singleElement().isInstanceOfSatisfying(RunnerMessage.Failed.class, f -> {
            assertThat(f.error()).isEqualTo("iteration 1 exited with code 3"); // the second, counted from 0
            assertThat(f.failureCode()).as("the job's own failure (issue 41)").isEqualTo(FailureCode.EXIT_CODE);
        });
    }

    /** An executor that fails under a running job is the machine's fault, and says so (issue 41). */
    @Test
    void anExecutorErrorIsReportedWithItsCode() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.error(List.of(), "runc exited 1")));
        assertThat(sent(done))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Failed.class,
                        f -> assertThat(f.failureCode()).isEqualTo(FailureCode.EXECUTOR_ERROR));
    }

    @Test
    void outOfMemoryIsReportedAsSuch() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.outOfMemory(List.of(), "limit 64 MiB")));
        assertThat(sent(done)).singleElement().isInstanceOfSatisfying(RunnerMessage.Failed.class, f -> {
            assertThat(f.error()).startsWith("out of memory").contains("limit 64 MiB");
            assertThat(f.failureCode()).isEqualTo(FailureCode.OUT_OF_MEMORY);
        });
    }

    @Test
    void reconnectKeepsPendingResultAndResendsItBeforeTheNextReady() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        List<Effect> closed = in(new Input.ConnectionClosed(now, "server restarted", false));
        assertThat(only(closed, Effect.DeleteOutbox.class)).isEmpty();
        assertThat(only(closed, Effect.ScheduleReconnect.class))
                .singleElement()
                .satisfies(s -> assertThat(s.delay()).isBetween(Duration.ofMillis(250), Duration.ofMillis(500)));
        assertThat(machine.pendingResults()).isEqualTo(1);

        assertThat(in(new Input.ReconnectDue(now))).containsExactly(new Effect.Connect());
        List<RunnerMessage> resent = sent(in(new Input.ConnectionOpened(now)));
        // The result and nothing else: no ready while a result waits for its ack.
        assertThat(resent).containsExactly(new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(OK)));

        List<Effect> acked = received(new ServerMessage.Ack(job.uuid()));
        assertThat(acked.getFirst()).isEqualTo(new Effect.DeleteOutbox(job.uuid()));
        assertThat(sent(acked)).singleElement().isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void backoffGrowsExponentiallyWithJitterAndResetsAfterAValidMessage() {
        connected();
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            delays.add(only(in(new Input.ConnectionClosed(now, "refused", false)), Effect.ScheduleReconnect.class)
                    .getFirst()
                    .delay());
            in(new Input.ReconnectDue(now));
        }
        // attempt n waits in [d/2, d] with d = 500 ms · 2^n capped at 30 s
        for (int i = 0; i < delays.size(); i++) {
            long d = Math.min(30_000, 500L << i);
            assertThat(delays.get(i).toMillis()).as("attempt %d", i).isBetween(d / 2, d);
        }
        in(new Input.ConnectionOpened(now));
        received(new ServerMessage.NoJob());
        Duration afterReset = only(in(new Input.ConnectionClosed(now, "x", false)), Effect.ScheduleReconnect.class)
                .getFirst()
                .delay();
        assertThat(afterReset.toMillis()).isBetween(250L, 500L);
    }

    /** A connect over the server's limit (4029) says when to retry: the agent waits at least that long. */
    @Test
    void aConnectRefusedForTooManyConnectsWaitsAsLongAsTheServerSays() {
        connected();
        received(new ServerMessage.NoJob());
        Duration delay = only(
                        in(new Input.ConnectionClosed(
                                now,
                                "closed by server (4029 too many connects of this runner; retry in 20 s)",
                                false,
                                false,
                                false,
                                Duration.ofSeconds(20))),
                        Effect.ScheduleReconnect.class)
                .getFirst()
                .delay();
        assertThat(delay).isEqualTo(Duration.ofSeconds(20));
        in(new Input.ReconnectDue(now.plus(delay)));
        in(new Input.ConnectionOpened(now.plus(delay)));
        received(new ServerMessage.NoJob());
        Duration ordinary = only(in(new Input.ConnectionClosed(now, "lost", false)), Effect.ScheduleReconnect.class)
                .getFirst()
                .delay();
        assertThat(ordinary).as("an ordinary close keeps its own backoff").isLessThan(Duration.ofSeconds(1));
    }

    /**
     * Two agents with one key: each connection is replaced (4001) by the other's soon after it
     * opened, and valid messages come in between. Before, every valid message reset the backoff,
     * so the agents took the channel back from each other every 0.25–0.5 s forever.
     */
    @Test
    void aReplacedConnectionBacksOffExponentiallyAndValidMessagesDoNotResetIt() {
        connected();
        List<Duration> delays = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            received(new ServerMessage.NoJob()); // a valid message on the connection that will be replaced
            now = now.plusMillis(300);
            List<Effect> closed = in(new Input.ConnectionClosed(now, "closed by server (4001 replaced)", false, true));
            Duration delay =
                    only(closed, Effect.ScheduleReconnect.class).getFirst().delay();
            delays.add(delay);
            now = now.plus(delay);
            in(new Input.ReconnectDue(now));
            in(new Input.ConnectionOpened(now));
        }
        // replacement n (from 1) waits in [d/2, d] with d = 500 ms · 2^n capped at 30 s
        for (int i = 0; i < delays.size(); i++) {
            long d = Math.min(30_000, 500L << (i + 1));
            assertThat(delays.get(i).toMillis()).as("replacement %d", i + 1).isBetween(d / 2, d);
        }
        // A connection that stays up for the longest backoff starts over.
        now = now.plus(MachineConfig.defaults("test").backoffMax());
        Duration fresh = only(
                        in(new Input.ConnectionClosed(now, "closed by server (4001 replaced)", false, true)),
                        Effect.ScheduleReconnect.class)
                .getFirst()
                .delay();
        assertThat(fresh.toMillis()).isBetween(500L, 1000L);
        // An ordinary drop after that is not slowed down by the replacements.
        in(new Input.ReconnectDue(now));
        in(new Input.ConnectionOpened(now));
        received(new ServerMessage.NoJob());
        Duration ordinary = only(in(new Input.ConnectionClosed(now, "lost", false)), Effect.ScheduleReconnect.class)
                .getFirst()
                .delay();
        assertThat(ordinary.toMillis()).isBetween(250L, 500L);
    }

    @Test
    void leftoversKilledAtStartAreNamedInTheReport() {
        JobUuid started = JobUuid.random();
        JobUuid preparing = JobUuid.random();
        LeaseId l1 = LeaseId.random();
        LeaseId l2 = LeaseId.random();
        machine = new RunnerMachine(
                MachineConfig.defaults("test"),
                new Random(1),
                Map.of(),
                List.of(new InflightRecord(started, l1, T0), new InflightRecord(preparing, l2, null)),
                Map.of(started, "process group 4242 (2 processes)", preparing, "container baton-x-1"),
                LogBudget.DEFAULT);
        in(new Input.Start(now));
        List<RunnerMessage> open = sent(in(new Input.ConnectionOpened(now)));
        assertThat(open)
                .containsExactly(
                        RunnerMessage.Failed.because(
                                started,
                                l1,
                                List.of(),
                                "runner restarted during execution; killed what it left running: process group 4242 (2 processes)",
                                FailureCode.RUNNER_RESTARTED),
                        new RunnerMessage.Declined(
                                preparing,
                                l2,
                                "other",
                                "runner restarted while preparing; killed what it left running: container baton-x-1"));
    }

    @Test
    void resultDroppedAfterBoundedRetries() {
        machine = RunnerMachine.fresh(MachineConfig.defaults("test").withMaxSends(3), new Random(1));
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK)))); // send 1
        for (int i = 2; i <= 3; i++) {
            in(new Input.ConnectionClosed(now, "lost", false));
            in(new Input.ReconnectDue(now));
            assertThat(sent(in(new Input.ConnectionOpened(now)))).first().isInstanceOf(RunnerMessage.Completed.class);
        }
        in(new Input.ConnectionClosed(now, "lost", false));
        in(new Input.ReconnectDue(now));
        List<Effect> fourth = in(new Input.ConnectionOpened(now));
        assertThat(fourth.getFirst()).isEqualTo(new Effect.DeleteOutbox(job.uuid()));
        assertThat(sent(fourth)).singleElement().isInstanceOf(RunnerMessage.Ready.class);
        assertThat(machine.pendingResults()).isZero();
    }

    @Test
    void ackForTheWrongJobOrAnEarlierMessageLeavesTheResultPending() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        tick(Duration.ofSeconds(1)); // heartbeat in flight
        in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        assertThat(received(new ServerMessage.Ack(JobUuid.random()))).isEmpty();
        // acks of preparing, running and heartbeat are not the ack of the result
        for (int i = 0; i < 3; i++)
            assertThat(received(new ServerMessage.Ack(job.uuid()))).isEmpty();
        assertThat(machine.pendingResults()).isEqualTo(1);
        assertThat(received(new ServerMessage.Ack(job.uuid()))).contains(new Effect.DeleteOutbox(job.uuid()));
        assertThat(machine.pendingResults()).isZero();
    }

    @Test
    void anUnacknowledgedResultIsResentOnTheSameConnectionAndTheLaterAckSettlesIt() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        // The server answered one earlier message of this job with something other than an ack,
        // so the acks received fall one short of the result's position.
        received(new ServerMessage.Ack(job.uuid())); // preparing
        received(new ServerMessage.Ack(job.uuid())); // really the result's ack, counted as the running ack
        assertThat(machine.pendingResults()).isEqualTo(1);
        assertThat(only(tick(Duration.ofSeconds(9)), Effect.Send.class))
                .noneMatch(s -> s.message() instanceof RunnerMessage.Completed);
        List<Effect> resend = tick(Duration.ofSeconds(1));
        assertThat(sent(resend)).contains(new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(OK)));
        List<Effect> acked = received(new ServerMessage.Ack(job.uuid()));
        assertThat(acked).contains(new Effect.DeleteOutbox(job.uuid()));
        assertThat(sent(acked)).singleElement().isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void staleStopsTheWorkAndNothingIsReported() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        List<Effect> stale = received(new ServerMessage.Stale(job.uuid(), job.lease(), "lease expired"));
        assertThat(stale).containsExactly(new Effect.StopWorkload(job.uuid(), Duration.ZERO));
        // no heartbeat for a stale attempt
        assertThat(sent(tick(Duration.ofSeconds(1)))).isEmpty();
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.stopped(List.of(OK))));
        assertThat(only(done, Effect.WriteOutbox.class)).isEmpty();
        assertThat(sent(done)).singleElement().isInstanceOf(RunnerMessage.Ready.class);
        assertThat(machine.pendingResults()).isZero();
    }

    @Test
    void staleForAPendingResultDropsItWithoutResending() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        List<Effect> stale = received(new ServerMessage.Stale(job.uuid(), job.lease(), "new lease granted"));
        assertThat(stale.getFirst()).isEqualTo(new Effect.DeleteOutbox(job.uuid()));
        in(new Input.ConnectionClosed(now, "lost", false));
        in(new Input.ReconnectDue(now));
        assertThat(sent(in(new Input.ConnectionOpened(now)))).singleElement().isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void staleWithAnotherLeaseChangesNothing() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        assertThat(received(new ServerMessage.Stale(job.uuid(), LeaseId.random(), "x")))
                .isEmpty();
        assertThat(machine.activeJobs()).isEqualTo(1);
    }

    @Test
    void cancelStopsThenReportsCanceledWithPartialOutput() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        List<Effect> cancel = received(new ServerMessage.Cancel(job.uuid(), job.lease(), "user", 30));
        assertThat(cancel).containsExactly(new Effect.StopWorkload(job.uuid(), Duration.ofSeconds(5)));
        var partial = new IterationResult(143, "half", "", Map.of());
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.stopped(List.of(partial))));
        assertThat(sent(done)).containsExactly(new RunnerMessage.Canceled(job.uuid(), job.lease(), List.of(partial)));
    }

    @Test
    void cancelWithAWrongLeaseIsIgnored() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        assertThat(received(new ServerMessage.Cancel(job.uuid(), LeaseId.random(), "user", 30)))
                .isEmpty();
    }

    @Test
    void cancelWhilePreparingAnswersCanceledWithoutStarting() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        received(new ServerMessage.Job(job));
        received(new ServerMessage.Cancel(job.uuid(), job.lease(), "user", 0));
        assertThat(in(new Input.Prepared(job.uuid()))).isEmpty(); // no StartWorkload
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.stopped(List.of())));
        assertThat(sent(done)).contains(new RunnerMessage.Canceled(job.uuid(), job.lease(), List.of()));
    }

    @Test
    void localTimeoutStopsAndReportsFailedWithPartialOutput() {
        connected();
        ClaimedJob job = Jobs.claimed(10);
        runJob(job);
        assertThat(only(tick(Duration.ofSeconds(9)), Effect.StopWorkload.class)).isEmpty();
        assertThat(only(tick(Duration.ofSeconds(1)), Effect.StopWorkload.class))
                .containsExactly(new Effect.StopWorkload(job.uuid(), Duration.ofSeconds(5)));
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.stopped(List.of(OK))));
        assertThat(sent(done)).singleElement().isInstanceOfSatisfying(RunnerMessage.Failed.class, f -> {
            assertThat(f.error()).contains("timed out after 10 s");
            assertThat(f.results()).containsExactly(OK);
        });
    }

    @Test
    void declineWhenArchitectureDoesNotMatch() {
        connected();
        Architecture other =
                Architecture.ofHost().orElseThrow() == Architecture.X86_64 ? Architecture.AARCH64 : Architecture.X86_64;
        ClaimedJob job =
                Jobs.claimed(Jobs.spec(other, 1, 1 << 20, false), Jobs.command(List.of("true"), 5, 1, List.of()));
        List<RunnerMessage> out = sent(received(new ServerMessage.Job(job)));
        assertThat(out.getFirst())
                .isInstanceOfSatisfying(
                        RunnerMessage.Declined.class,
                        d -> assertThat(d.reason()).contains("architecture " + other.wireName()));
        assertThat(out.get(1)).isInstanceOf(RunnerMessage.Ready.class);
        assertThat(machine.activeJobs()).isZero();
    }

    @Test
    void executorDeclineIsSentAndTheSlotFreed() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        received(new ServerMessage.Job(job));
        List<Effect> d = in(new Input.PrepareDeclined(job.uuid(), DeclineCode.PULL_FAILED, "image pull denied (401)"));
        assertThat(d)
                .contains(
                        new Effect.DeleteInflight(job.uuid()),
                        new Effect.Send(new RunnerMessage.Declined(
                                job.uuid(), job.lease(), "pull_failed", "image pull denied (401)")));
        assertThat(sent(d).getLast()).isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void slotsTwoRunsTwoJobsAndNeverMore() {
        machine = RunnerMachine.fresh(MachineConfig.defaults("test").withSlots(2), new Random(1));
        List<RunnerMessage> first = sent(connected());
        assertThat(first)
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class, r -> assertThat(r.slots()).isEqualTo(2));
        ClaimedJob a = Jobs.claimed(60);
        ClaimedJob b = Jobs.claimed(60);
        ClaimedJob c = Jobs.claimed(60);
        // The wait for two is still open after the first job: no second ready while its other job may be on its way.
        assertThat(sent(received(new ServerMessage.Job(a)))).noneMatch(m -> m instanceof RunnerMessage.Ready);
        List<Effect> onB = received(new ServerMessage.Job(b));
        assertThat(onB).contains(new Effect.StartPrepare(b));
        assertThat(sent(onB)).noneMatch(m -> m instanceof RunnerMessage.Ready);
        // A third job is declined even if the server sends it.
        assertThat(sent(received(new ServerMessage.Job(c))))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Declined.class,
                        d -> assertThat(d.reason()).contains("no free slot"));
        assertThat(machine.activeJobs()).isEqualTo(2);
    }

    @Test
    void aSlotFreedWhileTheWaitForTwoIsOpenIsAskedForOnlyOnceThatWaitEnds() {
        machine = RunnerMachine.fresh(MachineConfig.defaults("test").withSlots(2), new Random(1));
        connected();
        ClaimedJob a = Jobs.claimed(60);
        runJob(a);
        List<Effect> finished = in(new Input.Finished(a.uuid(), ExecutionResult.exited(List.of(OK))));
        // acks for running and completed (each message on the link is acknowledged in order)
        List<Effect> acked = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) acked.addAll(received(new ServerMessage.Ack(a.uuid())));
        assertThat(acked).contains(new Effect.DeleteOutbox(a.uuid()));
        // Both slots are free, but the server may still send the second job of the first wait.
        assertThat(sent(finished)).noneMatch(m -> m instanceof RunnerMessage.Ready);
        assertThat(sent(acked)).noneMatch(m -> m instanceof RunnerMessage.Ready);
        // The wait ends (poll timeout): now the runner asks for everything it has free.
        assertThat(sent(received(new ServerMessage.NoJob())))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class, r -> assertThat(r.slots()).isEqualTo(2));
    }

    @Test
    void shutdownDuringExecutionFinishesWithinGrace() {
        connected();
        ClaimedJob job = Jobs.claimed(600);
        runJob(job);
        assertThat(in(new Input.SignalReceived(Input.Signal.TERMINATE, now))).isEmpty();
        assertThat(machine.isQuiet()).isTrue();
        tick(Duration.ofSeconds(10));
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        assertThat(sent(done)).containsExactly(new RunnerMessage.Completed(job.uuid(), job.lease(), List.of(OK)));
        assertThat(only(done, Effect.Exit.class)).isEmpty(); // waits for the ack
        for (int i = 0; i < 3; i++) received(new ServerMessage.Ack(job.uuid()));
        List<Effect> acked = received(new ServerMessage.Ack(job.uuid()));
        assertThat(acked).contains(new Effect.Exit(RunnerMachine.EXIT_OK, "shut down"));
        assertThat(sent(acked)).isEmpty(); // no ready while shutting down
    }

    @Test
    void shutdownAfterGraceStopsAndReportsFailed() {
        connected();
        ClaimedJob job = Jobs.claimed(600);
        runJob(job);
        in(new Input.SignalReceived(Input.Signal.TERMINATE, now));
        assertThat(only(tick(Duration.ofSeconds(24)), Effect.StopWorkload.class))
                .isEmpty();
        assertThat(only(tick(Duration.ofSeconds(1)), Effect.StopWorkload.class))
                .containsExactly(new Effect.StopWorkload(job.uuid(), Duration.ofSeconds(5)));
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.stopped(List.of(OK))));
        assertThat(sent(done))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Failed.class, f -> assertThat(f.error()).contains("grace period of 25 s"));
        // Exit happens at the latest after the ack window even without an ack.
        assertThat(tick(Duration.ofSeconds(10)))
                .contains(new Effect.Exit(RunnerMachine.EXIT_OK, "shut down after the grace period"));
    }

    @Test
    void shutdownWhilePreparingDeclines() {
        connected();
        ClaimedJob job = Jobs.claimed(600);
        received(new ServerMessage.Job(job));
        assertThat(in(new Input.SignalReceived(Input.Signal.TERMINATE, now)))
                .containsExactly(new Effect.StopWorkload(job.uuid(), Duration.ZERO));
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.stopped(List.of())));
        assertThat(sent(done))
                .containsExactly(
                        new RunnerMessage.Declined(job.uuid(), job.lease(), "shutting_down", "runner shutting down"));
        assertThat(done).contains(new Effect.Exit(RunnerMachine.EXIT_OK, "shut down"));
    }

    @Test
    void idleShutdownExitsAtOnce() {
        connected();
        assertThat(in(new Input.SignalReceived(Input.Signal.TERMINATE, now)))
                .containsExactly(new Effect.Disconnect(), new Effect.Exit(RunnerMachine.EXIT_OK, "shut down"));
        assertThat(machine.hasExited()).isTrue();
    }

    @Test
    void quietDeclinesNewJobsAndResumeAsksAgain() {
        connected();
        assertThat(in(new Input.SignalReceived(Input.Signal.QUIET, now))).isEmpty();
        ClaimedJob job = Jobs.claimed(60);
        // the outstanding ready may still bring a job: it is declined, not failed
        assertThat(sent(received(new ServerMessage.Job(job))))
                .containsExactly(new RunnerMessage.Declined(job.uuid(), job.lease(), "other", "runner is quiet"));
        assertThat(sent(in(new Input.SignalReceived(Input.Signal.RESUME, now))))
                .singleElement()
                .isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void serverDrainDirectivesWorkLikeSignals() {
        connected();
        received(new ServerMessage.NoJob()); // ready again
        received(new ServerMessage.Drain(DrainState.QUIET));
        assertThat(machine.isQuiet()).isTrue();
        assertThat(sent(received(new ServerMessage.NoJob()))).isEmpty();
        assertThat(sent(received(new ServerMessage.Drain(DrainState.RUNNING))))
                .singleElement()
                .isInstanceOf(RunnerMessage.Ready.class);
        assertThat(received(new ServerMessage.Drain(DrainState.TERMINATE)))
                .contains(new Effect.Exit(RunnerMachine.EXIT_OK, "shut down"));
    }

    @Test
    void restartedRunnerReportsWhatItKnows() {
        JobUuid started = JobUuid.random();
        JobUuid preparing = JobUuid.random();
        LeaseId l1 = LeaseId.random();
        LeaseId l2 = LeaseId.random();
        machine = new RunnerMachine(
                MachineConfig.defaults("test"),
                new Random(1),
                Map.of(),
                List.of(new InflightRecord(started, l1, T0), new InflightRecord(preparing, l2, null)));
        List<Effect> start = in(new Input.Start(now));
        // Its failure code says the machine's agent broke, not the job (issue 41).
        var failed = RunnerMessage.Failed.because(
                started, l1, List.of(), "runner restarted during execution", FailureCode.RUNNER_RESTARTED);
        assertThat(start)
                .contains(
                        new Effect.WriteOutbox(failed, 0),
                        new Effect.DeleteInflight(started),
                        new Effect.DeleteInflight(preparing));
        List<RunnerMessage> open = sent(in(new Input.ConnectionOpened(now)));
        assertThat(open)
                .containsExactly(
                        failed, new RunnerMessage.Declined(preparing, l2, "other", "runner restarted while preparing"));
    }

    @Test
    void recoveredOutboxIsSentWithItsSendCount() {
        JobUuid job = JobUuid.random();
        var completed = new RunnerMessage.Completed(job, LeaseId.random(), List.of(OK));
        machine = new RunnerMachine(
                MachineConfig.defaults("test").withMaxSends(3), new Random(1), Map.of(completed, 2), List.of());
        in(new Input.Start(now));
        List<Effect> open = in(new Input.ConnectionOpened(now));
        assertThat(open).containsExactly(new Effect.WriteOutbox(completed, 3), new Effect.Send(completed));
    }

    @Test
    void updateWaitsForRunningJobsAndRestarts() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        runJob(job);
        var update = new ServerMessage.Update("2.0.0", "http://x/baton.jar", "00");
        assertThat(received(update)).isEmpty();
        List<Effect> done = in(new Input.Finished(job.uuid(), ExecutionResult.exited(List.of(OK))));
        assertThat(done).contains(new Effect.ApplyUpdate(update));
        assertThat(in(new Input.UpdateInstalled("2.0.0")))
                .contains(new Effect.Exit(RunnerMachine.EXIT_RESTART, "updated to 2.0.0; restarting"));
    }

    @Test
    void failedUpdateKeepsRunningAndAsksForWork() {
        connected();
        received(new ServerMessage.NoJob());
        var update = new ServerMessage.Update("2.0.0", "http://x/baton.jar", "00");
        assertThat(received(update)).containsExactly(new Effect.ApplyUpdate(update));
        assertThat(sent(received(new ServerMessage.NoJob()))).isEmpty(); // no ready while updating
        List<Effect> failed = in(new Input.UpdateFailed("2.0.0", "checksum mismatch"));
        assertThat(only(failed, Effect.Exit.class)).isEmpty();
        assertThat(sent(failed)).singleElement().isInstanceOf(RunnerMessage.Ready.class);
    }

    @Test
    void refusedKeyExits() {
        in(new Input.Start(now));
        assertThat(in(new Input.ConnectionClosed(now, "401 Unauthorized", true)))
                .containsExactly(
                        new Effect.Exit(RunnerMachine.EXIT_REFUSED, "server refused the runner: 401 Unauthorized"));
    }

    @Test
    void unexpectedInputKeepsState() {
        connected();
        assertThat(in(new Input.Prepared(JobUuid.random()))).isEmpty();
        assertThat(in(new Input.Finished(JobUuid.random(), ExecutionResult.exited(List.of()))))
                .isEmpty();
        assertThat(in(new Input.ConnectionOpened(now))).isEmpty();
        assertThat(in(new Input.UpdateInstalled("x"))).isEmpty();
        assertThat(received(new ServerMessage.Ack(JobUuid.random()))).isEmpty();
        assertThat(machine.activeJobs()).isZero();
        assertThat(sent(tick(Duration.ofSeconds(1)))).containsExactly(new RunnerMessage.Heartbeat(null, null));
    }

    @Test
    void readyCarriesTheExecutorsCapabilitiesWhenConfigured() {
        var caps = new dev.baton.protocol.model.RunnerCapabilities("microvm", "qemu-microvm", "tcg");
        machine = RunnerMachine.fresh(MachineConfig.defaults("test").withCapabilities(caps), new Random(1));
        assertThat(sent(connected()))
                .singleElement()
                .isInstanceOfSatisfying(
                        RunnerMessage.Ready.class,
                        r -> assertThat(r.capabilities()).isEqualTo(caps));
    }

    @Test
    void aJobWhoseVmDoesNotBootAfterPrepareIsDeclinedNotFailed() {
        connected();
        ClaimedJob job = Jobs.claimed(60);
        received(new ServerMessage.Job(job));
        in(new Input.Prepared(job.uuid()));
        // The executor could not boot the VM for the first iteration: nothing started, so the job goes back to the
        // queue.
        List<Effect> d = in(new Input.PrepareDeclined(job.uuid(), DeclineCode.VM_BOOT_FAILED, "the VM did not boot"));
        assertThat(sent(d).getFirst())
                .isEqualTo(new RunnerMessage.Declined(
                        job.uuid(), job.lease(), DeclineCode.VM_BOOT_FAILED, "the VM did not boot"));
        assertThat(sent(d)).noneMatch(m -> m instanceof RunnerMessage.Failed || m instanceof RunnerMessage.Running);
    }
}
