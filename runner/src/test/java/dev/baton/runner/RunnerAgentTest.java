package dev.baton.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import dev.baton.runner.testing.ScriptedPeer;
import dev.baton.runner.update.Updater;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real agent (socket, outbox, process executor, its loop's own ticks) against a scripted peer
 * standing in for the server's channel, which lands separately; end-to-end tests against the
 * real server come with the integration.
 */
class RunnerAgentTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path work;

    private final RunnerKey key = RunnerKey.generate();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ConcurrentLinkedQueue<ClaimedJob> queue = new ConcurrentLinkedQueue<>();
    private ScriptedPeer peer;

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        if (peer != null) peer.close();
    }

    /**
     * A server that hands out queued jobs on ready and acks everything else. With nothing queued it
     * leaves the ready waiting, as a real server does until the poll timeout.
     */
    private List<ServerMessage> server(ScriptedPeer p, RunnerMessage m) {
        if (m instanceof RunnerMessage.Ready ready) {
            // As the server does: up to the ready's slots jobs for one ready (no no_job: the tests' queues end).
            List<ServerMessage> jobs = new java.util.ArrayList<>();
            int slots = ready.slots() == null ? 1 : ready.slots();
            for (ClaimedJob job; jobs.size() < slots && (job = queue.poll()) != null; )
                jobs.add(new ServerMessage.Job(job));
            return jobs;
        }
        return List.of(ScriptedPeer.ackFor(m));
    }

    private RunnerAgent agent(MachineConfig config, Path dir) {
        return agent(config, dir, Updater.unsupported("test"));
    }

    private RunnerAgent agent(MachineConfig config, Path dir, Updater updater) {
        var executor = new ProcessExecutor(dir, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        return new RunnerAgent(
                config.withPollTimeout(1),
                new RunnerAgent.Target(peer.url(), "runner-1", key),
                executor,
                new Outbox(dir.resolve("outbox")),
                updater,
                Clock.systemUTC(),
                Duration.ofMillis(200));
    }

    private Future<Integer> run(RunnerAgent agent) {
        return threads.submit(agent::run);
    }

    private static ClaimedJob shellJob(String script, int timeout, List<String> files) {
        return Jobs.claimed(
                Jobs.spec(dev.baton.protocol.value.Architecture.ofHost().orElseThrow(), 1, 1 << 30, false),
                Jobs.command(List.of("sh", "-c", script), timeout, 1, files));
    }

    @Test
    void jobEndToEndWithTheProcessExecutor() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        ClaimedJob job = shellJob("echo hello; echo data > out.txt; echo oops >&2", 60, List.of("out.txt"));
        queue.add(job);
        RunnerAgent agent = agent(MachineConfig.defaults("test"), work);
        Future<Integer> exit = run(agent);

        RunnerMessage.Ready ready = peer.await(RunnerMessage.Ready.class, WAIT);
        assertThat(ready.slots()).isEqualTo(1);
        assertThat(ready.version()).isEqualTo("test");
        // Issue 41: the agent's own process, so the server can tell which machine and which run took a job.
        assertThat(ready.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(ready.host()).isNotBlank();
        assertThat(ready.agentStarted())
                .isEqualTo(ProcessHandle.current().info().startInstant().orElseThrow());
        peer.await(RunnerMessage.Preparing.class, WAIT);
        peer.await(RunnerMessage.Running.class, WAIT);
        RunnerMessage.Completed done = peer.await(RunnerMessage.Completed.class, WAIT);
        assertThat(done.job()).isEqualTo(job.uuid());
        assertThat(done.lease().matches(job.lease())).isTrue();
        assertThat(done.results()).singleElement().satisfies(r -> {
            assertThat(r.exitCode()).isZero();
            assertThat(r.stdout()).isEqualTo("hello\n");
            assertThat(r.stderr()).isEqualTo("oops\n");
            assertThat(r.output()).containsEntry("out.txt", "data\n");
        });
        // acked: the outbox is empty again and the runner asks for more work
        peer.await(RunnerMessage.Ready.class, WAIT);
        assertThat(new Outbox(work.resolve("outbox")).results()).isEmpty();

        agent.signal(Input.Signal.TERMINATE);
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
    }

    /**
     * Issue 45: the loop ticks itself (it waits for its next input at most until the tick is due), so
     * an agent that only heartbeats starts no timer thread at all: a thread that woke for every tick
     * and handed it over was one more wake-up per tick at rest.
     */
    @Test
    void heartbeatsGoOnWithoutATimerThread() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        peer = new ScriptedPeer(key.reveal(), this::server);
        RunnerAgent agent = agent(MachineConfig.defaults("test"), work);
        Future<Integer> exit = run(agent);
        peer.await(RunnerMessage.Ready.class, WAIT);
        for (int i = 0; i < 3; i++) peer.await(RunnerMessage.Heartbeat.class, WAIT);

        assertThat(timerThreadsStartedSince(before)).isEmpty();
        agent.signal(Input.Signal.TERMINATE);
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
    }

    /**
     * Issue 45: the live-output pump is armed by output, not by a job: a job that prints nothing
     * runs and reports without any timer thread waking beside it.
     */
    @Test
    void aSilentJobRunsWithoutATimerThread() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        peer = new ScriptedPeer(key.reveal(), this::server);
        queue.add(shellJob("sleep 1", 60, List.of()));
        RunnerAgent agent = agent(MachineConfig.defaults("test"), work);
        Future<Integer> exit = run(agent);
        peer.await(RunnerMessage.Running.class, WAIT);
        peer.await(RunnerMessage.Completed.class, WAIT);

        assertThat(timerThreadsStartedSince(before)).isEmpty();
        agent.signal(Input.Signal.TERMINATE);
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
    }

    @Test
    void serverRestartMidJobDeliversTheResultAfterReconnectBeforeTheNextReady() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        ClaimedJob job = shellJob("sleep 1; echo finished", 60, List.of());
        queue.add(job);
        Future<Integer> exit = run(agent(MachineConfig.defaults("test"), work));
        peer.await(RunnerMessage.Running.class, WAIT);
        // The server goes away while the job runs and comes back: it ignores everything at first,
        // so the result stays unacknowledged and must be resent on the next connection.
        peer.script((p, m) -> List.of());
        peer.restart();
        RunnerMessage.Completed first = peer.await(RunnerMessage.Completed.class, WAIT);
        assertThat(first.results().getFirst().stdout()).isEqualTo("finished\n");
        assertThat(new Outbox(work.resolve("outbox")).results()).hasSize(1);

        int before = peer.all().size();
        peer.script(this::server);
        peer.restart(); // drop again, now with a server that acks
        RunnerMessage.Completed resent = peer.await(RunnerMessage.Completed.class, WAIT);
        assertThat(resent.job()).isEqualTo(job.uuid());
        peer.await(RunnerMessage.Ready.class, WAIT);
        List<RunnerMessage> afterReconnect =
                peer.all().subList(before, peer.all().size());
        List<String> order = new ArrayList<>();
        for (RunnerMessage m : afterReconnect) {
            if (m instanceof RunnerMessage.Completed) order.add("completed");
            if (m instanceof RunnerMessage.Ready) order.add("ready");
        }
        assertThat(order).startsWith("completed", "ready");
        assertThat(peer.connections()).isGreaterThanOrEqualTo(1);
        exit.cancel(true);
    }

    @Test
    void sigtermWithAJobInFlightFinishesItWithinTheGracePeriod() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        queue.add(shellJob("sleep 1; echo done", 60, List.of()));
        RunnerAgent agent = agent(MachineConfig.defaults("test").withGrace(Duration.ofSeconds(20)), work);
        Future<Integer> exit = run(agent);
        peer.await(RunnerMessage.Running.class, WAIT);
        agent.signal(Input.Signal.TERMINATE);
        RunnerMessage.Completed done = peer.await(RunnerMessage.Completed.class, WAIT);
        assertThat(done.results().getFirst().stdout()).isEqualTo("done\n");
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
        // no ready after the signal
        assertThat(peer.all().stream()
                        .filter(m -> m instanceof RunnerMessage.Ready)
                        .count())
                .isEqualTo(1);
    }

    @Test
    void sigtermAfterTheGracePeriodStopsTheJobAndReportsIt() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        queue.add(shellJob("echo started; sleep 60", 600, List.of()));
        RunnerAgent agent = agent(MachineConfig.defaults("test").withGrace(Duration.ofSeconds(1)), work);
        Future<Integer> exit = run(agent);
        peer.await(RunnerMessage.Running.class, WAIT);
        agent.signal(Input.Signal.TERMINATE);
        RunnerMessage.Failed failed = peer.await(RunnerMessage.Failed.class, WAIT);
        assertThat(failed.error()).contains("grace period");
        assertThat(failed.results().getFirst().stdout()).isEqualTo("started\n");
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
    }

    @Test
    void cancelMidRunStopsTheProcessAndReportsCanceledWithPartialOutput() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        ClaimedJob job = shellJob("echo partial; sleep 60", 600, List.of());
        queue.add(job);
        Future<Integer> exit = run(agent(MachineConfig.defaults("test"), work));
        peer.await(RunnerMessage.Running.class, WAIT);
        Thread.sleep(300); // let the shell print before it is stopped; not a timing assertion
        peer.send(new ServerMessage.Cancel(job.uuid(), job.lease(), "canceled by user", 10));
        RunnerMessage.Canceled canceled = peer.await(RunnerMessage.Canceled.class, WAIT);
        assertThat(canceled.results()).singleElement().satisfies(r -> {
            assertThat(r.stdout()).isEqualTo("partial\n");
            assertThat(r.exitCode()).isNotZero();
        });
        exit.cancel(true);
    }

    @Test
    void slotsTwoRunTwoJobsAtOnce() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        Path gate = work.resolve("gate");
        // Each job waits until both have started, so they can only finish if they run together.
        String script = "touch " + gate + ".$BATON_JOB; while [ $(ls " + work
                + " | grep -c '^gate\\.') -lt 2 ]; do sleep 0.05; done; echo together";
        ClaimedJob a = Jobs.claimed(
                Jobs.spec(dev.baton.protocol.value.Architecture.ofHost().orElseThrow(), 1, 1 << 30, false),
                new dev.baton.protocol.model.JobConfig(
                        null,
                        dev.baton.protocol.id.ProjectUuid.random(),
                        null,
                        null,
                        List.of("sh", "-c", script),
                        java.util.Map.of("BATON_JOB", "a"),
                        dev.baton.protocol.value.JobTimeout.of(30),
                        null,
                        1));
        ClaimedJob b = Jobs.claimed(
                a.spec(),
                new dev.baton.protocol.model.JobConfig(
                        null,
                        a.config().project(),
                        null,
                        null,
                        List.of("sh", "-c", script),
                        java.util.Map.of("BATON_JOB", "b"),
                        dev.baton.protocol.value.JobTimeout.of(30),
                        null,
                        1));
        queue.add(a);
        queue.add(b);
        Future<Integer> exit = run(agent(MachineConfig.defaults("test").withSlots(2), work.resolve("agent")));
        RunnerMessage.Completed first = peer.await(RunnerMessage.Completed.class, WAIT);
        RunnerMessage.Completed second = peer.await(RunnerMessage.Completed.class, WAIT);
        assertThat(List.of(first.job(), second.job())).containsExactlyInAnyOrder(a.uuid(), b.uuid());
        assertThat(first.results().getFirst().stdout()).isEqualTo("together\n");
        RunnerMessage.Ready firstReady = (RunnerMessage.Ready) peer.all().getFirst();
        assertThat(firstReady.slots()).isEqualTo(2);
        exit.cancel(true);
    }

    @Test
    void anAgentRestartedMidJobReportsWhatItKnows() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        ClaimedJob job = shellJob("sleep 60", 600, List.of());
        queue.add(job);
        RunnerAgent firstAgent = agent(MachineConfig.defaults("test"), work);
        Thread first = Thread.ofPlatform().name("first-agent").start(() -> {
            try {
                firstAgent.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        peer.await(RunnerMessage.Running.class, WAIT);
        // The agent dies without reporting (its loop is interrupted; nothing is sent for the job).
        // Only once it is gone may the next one start: until then it holds the work directory. (The
        // test used to start the next agent at once, whose start-up sweep then raced the first
        // agent's job cleanup over the same directory, failed, and ended the agent silently.)
        first.interrupt();
        first.join();
        assertThat(new Outbox(work.resolve("outbox")).inflight())
                .singleElement()
                .satisfies(r -> assertThat(r.hasStarted()).isTrue());

        Future<Integer> second = run(agent(MachineConfig.defaults("test"), work));
        RunnerMessage.Failed failed = peer.await(RunnerMessage.Failed.class, WAIT);
        assertThat(failed.job()).isEqualTo(job.uuid());
        assertThat(failed.lease().matches(job.lease())).isTrue();
        assertThat(failed.error()).startsWith("runner restarted during execution");
        peer.await(RunnerMessage.Ready.class, WAIT);
        assertThat(new Outbox(work.resolve("outbox")).inflight()).isEmpty();
        assertThat(new Outbox(work.resolve("outbox")).results()).isEmpty();
        second.cancel(true);
    }

    /** A sweep that throws (a tree another process is deleting, an unreadable record) must not end the agent unheard. */
    @Test
    void aFailingStartUpSweepIsLoggedAndTheAgentStillReports() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        var process = new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        dev.baton.runner.executor.Executor failingSweep = new dev.baton.runner.executor.Executor() {
            @Override
            public String name() {
                return "process";
            }

            @Override
            public dev.baton.runner.executor.Execution prepare(
                    ClaimedJob job, dev.baton.runner.executor.ExecutionEvents events) {
                return process.prepare(job, events);
            }

            @Override
            public List<dev.baton.runner.executor.Leftover> sweep() {
                throw new java.io.UncheckedIOException(new java.nio.file.NoSuchFileException("process/x/iteration-1"));
            }
        };
        ClaimedJob job = shellJob("echo ok", 60, List.of());
        queue.add(job);
        RunnerAgent agent = new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(1),
                new RunnerAgent.Target(peer.url(), "runner-1", key),
                failingSweep,
                new Outbox(work.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200));
        Future<Integer> exit = run(agent);
        assertThat(peer.await(RunnerMessage.Completed.class, WAIT).job()).isEqualTo(job.uuid());
        agent.signal(Input.Signal.TERMINATE);
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
    }

    @Test
    void aFailedUpdateKeepsTheAgentRunningAndAnInstalledOneExitsForARestart() throws Exception {
        // The scripted server answers ready only when told to, like a real one waiting for work.
        peer = new ScriptedPeer(
                key.reveal(), (p, m) -> m instanceof RunnerMessage.Ready ? List.of() : List.of(ScriptedPeer.ackFor(m)));
        List<String> installs = new java.util.concurrent.CopyOnWriteArrayList<>();
        Updater updater = update -> {
            installs.add(update.version());
            if (!update.checksum().equals("0".repeat(64)))
                throw new dev.baton.runner.update.UpdateException("checksum mismatch");
        };
        Future<Integer> exit = run(agent(MachineConfig.defaults("test"), work, updater));
        peer.await(RunnerMessage.Ready.class, WAIT);
        peer.send(new ServerMessage.Update("2.0.0", "http://127.0.0.1:1/baton.jar", "f".repeat(64)));
        peer.send(new ServerMessage.NoJob());
        // still alive and asking for work with the old version
        assertThat(peer.await(RunnerMessage.Ready.class, WAIT).version()).isEqualTo("test");
        assertThat(installs).containsExactly("2.0.0");
        assertThat(exit).isNotDone();

        peer.send(new ServerMessage.Update("2.0.1", "http://127.0.0.1:1/baton.jar", "0".repeat(64)));
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_RESTART);
        assertThat(installs).containsExactly("2.0.0", "2.0.1");
    }

    @Test
    void aRefusedKeyStopsTheAgent() throws Exception {
        peer = new ScriptedPeer(RunnerKey.generate().reveal(), this::server);
        Future<Integer> exit = run(agent(MachineConfig.defaults("test"), work));
        assertThat(exit.get(20, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_REFUSED);
    }

    @Test
    void theProcessExecutorRefusesToExistWithoutPermission() {
        assertThatThrownBy(() ->
                        new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--allow-no-sandbox");
    }

    /**
     * Timer threads (today's name, and the heartbeat thread's before issue 45) started since
     * {@code before}: those of agents from earlier tests in this JVM, still ending, do not count.
     */
    private static List<String> timerThreadsStartedSince(Set<Thread> before) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !before.contains(t))
                .map(Thread::getName)
                .filter(name -> name.equals("baton-timers") || name.equals("baton-heartbeat"))
                .toList();
    }
}
