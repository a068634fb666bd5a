package dev.baton.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.testing.AgentMain;
import dev.baton.runner.testing.ChildJvm;
import dev.baton.runner.testing.LockHolder;
import dev.baton.runner.testing.ScriptedPeer;
import dev.baton.runner.update.Updater;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One agent per work directory, and nothing left running after an agent dies: with real
 * processes (a lock held by another JVM, an agent JVM killed with SIGKILL).
 */
class AgentWorkDirTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path work;

    private final RunnerKey key = RunnerKey.generate();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ConcurrentLinkedQueue<ClaimedJob> queue = new ConcurrentLinkedQueue<>();
    private final List<Process> children = new ArrayList<>();
    private final List<Long> jobPids = new ArrayList<>();
    private ScriptedPeer peer;

    @AfterEach
    void tearDown() {
        children.forEach(Process::destroyForcibly);
        jobPids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        threads.shutdownNow();
        if (peer != null) peer.close();
    }

    private List<ServerMessage> server(ScriptedPeer p, RunnerMessage m) {
        if (m instanceof RunnerMessage.Ready) {
            ClaimedJob job = queue.poll();
            return job == null ? List.of() : List.of(new ServerMessage.Job(job));
        }
        return List.of(ScriptedPeer.ackFor(m));
    }

    private RunnerAgent agent() {
        var executor = new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        return new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(1),
                new RunnerAgent.Target(peer.url(), "runner-1", key),
                executor,
                new Outbox(work.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200),
                work);
    }

    private Process lockHolder() throws IOException {
        Process p = ChildJvm.start(
                LockHolder.class,
                work.resolveSibling(work.getFileName() + "-holder.log"),
                List.of(work.toString()),
                Map.of());
        children.add(p);
        return p;
    }

    @Test
    void aSecondAgentOnTheSameWorkDirectoryExitsNamingTheHoldersPid() throws Exception {
        Process holder = lockHolder();
        assertThat(ChildJvm.awaitLine(holder, "locked ")).isEqualTo("locked " + holder.pid());

        assertThatThrownBy(() -> WorkDirLock.acquire(work))
                .isInstanceOfSatisfying(
                        WorkDirLock.HeldException.class,
                        e -> assertThat(e.holderPid()).isEqualTo(holder.pid()))
                .hasMessageContaining("PID " + holder.pid());
        peer = new ScriptedPeer(key.reveal(), this::server);
        assertThat(agent().run()).isEqualTo(RunnerAgent.EXIT_WORK_DIR_LOCKED);
        assertThat(peer.connections())
                .as("it never connected, so it cannot replace the holder's channel")
                .isZero();

        // The kernel drops the lock with its holder, however it dies.
        holder.destroyForcibly();
        holder.waitFor();
        try (WorkDirLock lock = WorkDirLock.acquire(work)) {
            assertThat(lock).isNotNull();
        }
    }

    @Test
    void twoAgentsInOneProcessAreRefusedToo() throws Exception {
        try (WorkDirLock first = WorkDirLock.acquire(work)) {
            assertThatThrownBy(() -> WorkDirLock.acquire(work))
                    .isInstanceOfSatisfying(
                            WorkDirLock.HeldException.class,
                            e -> assertThat(e.holderPid())
                                    .isEqualTo(ProcessHandle.current().pid()));
        }
    }

    /**
     * The job (a shell with a background child) outlives its SIGKILLed agent; the next agent on the
     * work directory kills both before it connects and reports the job lost, naming what it killed.
     */
    @Test
    void aJobOfASigkilledAgentIsKilledAtTheNextStartAndReportedLost() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        Path pids = work.resolveSibling(work.getFileName() + "-pids");
        Files.createDirectories(pids);
        String script = "sleep 600 & echo $! > " + pids + "/bg.tmp && mv " + pids + "/bg.tmp " + pids + "/bg; "
                + "echo $$ > " + pids + "/fg.tmp && mv " + pids + "/fg.tmp " + pids + "/fg; wait";
        ClaimedJob job = Jobs.claimed(
                Jobs.spec(Architecture.ofHost().orElseThrow(), 1, 1 << 30, false),
                Jobs.command(List.of("sh", "-c", script), 900, 1, List.of()));
        queue.add(job);
        Process first = ChildJvm.start(
                AgentMain.class,
                work.resolveSibling(work.getFileName() + "-agent.log"),
                List.of(peer.url().toString(), work.toString()),
                Map.of("BATON_TEST_RUNNER_KEY", key.reveal()));
        children.add(first);
        peer.await(RunnerMessage.Running.class, WAIT);
        long fg = awaitPid(pids.resolve("fg"));
        long bg = awaitPid(pids.resolve("bg"));
        jobPids.addAll(List.of(fg, bg));

        first.destroyForcibly(); // SIGKILL: no shutdown hook, no finally
        first.waitFor();
        assertThat(alive(fg)).as("the job's shell outlives its agent").isTrue();
        assertThat(alive(bg)).as("and so does its background child").isTrue();

        Future<Integer> second = threads.submit(agent()::run);
        RunnerMessage.Failed failed = peer.await(RunnerMessage.Failed.class, WAIT);
        assertThat(failed.job()).isEqualTo(job.uuid());
        assertThat(failed.lease().matches(job.lease())).isTrue();
        assertThat(failed.error()).startsWith("runner restarted during execution; killed what it left running: ");
        // The sweep ran before the agent connected, so both are gone by now.
        assertThat(alive(fg)).as("the job's shell").isFalse();
        assertThat(alive(bg)).as("its background child").isFalse();
        assertThat(Files.exists(work.resolve("process").resolve(job.uuid().toString())))
                .isFalse();
        peer.await(RunnerMessage.Ready.class, WAIT);
        assertThat(new Outbox(work.resolve("outbox")).inflight()).isEmpty();
        second.cancel(true);
    }

    @Test
    void aJobsBackgroundChildrenDoNotOutliveItsIteration() throws Exception {
        peer = new ScriptedPeer(key.reveal(), this::server);
        Path bgFile = work.resolveSibling(work.getFileName() + "-bg");
        // The shell exits at once; its background child would run for ten minutes.
        ClaimedJob job = Jobs.claimed(
                Jobs.spec(Architecture.ofHost().orElseThrow(), 1, 1 << 30, false),
                Jobs.command(
                        List.of(
                                "sh",
                                "-c",
                                "sleep 600 >/dev/null 2>&1 & echo $! > " + bgFile + ".tmp && mv " + bgFile + ".tmp "
                                        + bgFile),
                        60,
                        1,
                        List.of()));
        queue.add(job);
        RunnerAgent agent = agent();
        Future<Integer> exit = threads.submit(agent::run);
        RunnerMessage.Completed done = peer.await(RunnerMessage.Completed.class, WAIT);
        assertThat(done.job()).isEqualTo(job.uuid());
        long bg = awaitPid(bgFile);
        jobPids.add(bg);
        peer.await(RunnerMessage.Ready.class, WAIT); // the slot is free again: the job's cleanup ran
        assertThat(alive(bg)).isFalse();
        agent.signal(Input.Signal.TERMINATE);
        exit.get(30, TimeUnit.SECONDS);
    }

    private static long awaitPid(Path file) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) throw new AssertionError("no " + file + " within " + WAIT);
            Thread.sleep(20);
        }
        return Long.parseLong(Files.readString(file).strip());
    }

    /** Running or sleeping, not gone and not a zombie waiting for a parent that does not reap. */
    private static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            char state = stat.substring(stat.lastIndexOf(')') + 2).charAt(0);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }
}
