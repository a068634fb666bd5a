package dev.baton.runner;

import dev.baton.channelclient.connection.ChannelClient;
import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.connection.PullTokenRequests;
import dev.baton.runner.connection.ServerHttpClient;
import dev.baton.runner.executor.BaselineImageRefusal;
import dev.baton.runner.executor.Execution;
import dev.baton.runner.executor.ExecutionEvents;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.Leftover;
import dev.baton.runner.executor.StartCheck;
import dev.baton.runner.fingerprint.CleanMachinePolicy;
import dev.baton.runner.fingerprint.CpuList;
import dev.baton.runner.fingerprint.MachineInspector;
import dev.baton.runner.logs.OutputPump;
import dev.baton.runner.machine.Effect;
import dev.baton.runner.machine.LogBudget;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import dev.baton.runner.noise.NoiseProbe;
import dev.baton.runner.update.UpdateException;
import dev.baton.runner.update.Updater;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver around {@link RunnerMachine}: one loop thread takes inputs from a queue, asks the
 * machine for effects and carries them out (socket, outbox, executor, timers). Everything else —
 * socket listener, executors, signal handlers, the heartbeat thread — only posts inputs, so the
 * machine is never entered concurrently.
 *
 * <p>The heartbeat thread ticks once a second on its own platform thread, independent of the
 * workload (which runs in child processes or containers) and of the executors' threads.
 */
public final class RunnerAgent {
    private static final Logger log = LoggerFactory.getLogger(RunnerAgent.class);

    /** Where and how to connect. */
    public record Target(URI server, String runner, RunnerKey key) {
        @Override
        public String toString() {
            return "Target[" + server + ", " + runner + "]"; // never the key
        }
    }

    private final Path workDir;
    private final MachineConfig config;
    private final Executor executor;
    private final Outbox outbox;
    private final Updater updater;
    private final Clock clock;
    private final Duration tickInterval;
    private final ChannelClient channel;
    private final URI server;
    private final BlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
    private final Map<JobUuid, Execution> executions = new HashMap<>();
    /** Reconnects and the live-output pumps; its thread starts at the first of them (ticks are the loop's own). */
    private final ScheduledExecutorService timers;
    /** Live output of each held job, from its capture threads to the loop. */
    private final OutputPump output;
    /**
     * The longest wait between ticks at rest (issue 45, decision 0051): {@code tickInterval}
     * unless {@link #restTicks} says more, so drivers that do not ask tick as before.
     */
    private Duration restTickInterval;
    /**
     * When the next tick is due ({@link System#nanoTime}); only the loop thread touches it. The loop
     * waits for its next input at most until then and ticks itself: no timer thread wakes to post a
     * tick (issue 45: one wake-up fewer per tick at rest, and the timer's own re-arming gone).
     */
    private long nextTickDue;

    private final MachineInspector inspector;

    /** Measures the machine's noise (decision 0052); none unless {@link #calibrateNoise} or {@link #calibrateOnRequest} set it. */
    private NoiseProbe noiseProbe;
    /** Whether {@link #noiseProbe} also runs once at start, before connecting (else only when the server asks). */
    private boolean calibrateAtStart;

    /** The calibration measured at start, sent after each {@code welcome} until the agent stops (the server keeps it once). */
    private RunnerMessage.Calibration calibration;

    /** Exit status when another agent holds the work directory. */
    public static final int EXIT_WORK_DIR_LOCKED = 3;

    /** With the outbox's parent directory as the work directory (where {@code baton runner up} puts it). */
    public RunnerAgent(
            MachineConfig config,
            Target target,
            Executor executor,
            Outbox outbox,
            Updater updater,
            Clock clock,
            Duration tickInterval) {
        this(config, target, executor, outbox, updater, clock, tickInterval, defaultWorkDir(outbox));
    }

    /**
     * @param workDir the directory this agent locks for its lifetime (see {@link WorkDirLock}); it
     *     should contain the outbox and the executor's work directory
     */
    public RunnerAgent(
            MachineConfig config,
            Target target,
            Executor executor,
            Outbox outbox,
            Updater updater,
            Clock clock,
            Duration tickInterval,
            Path workDir) {
        this(
                config,
                target,
                executor,
                outbox,
                updater,
                clock,
                tickInterval,
                workDir,
                MachineInspector.ofHost(jobCpus(executor), clock));
    }

    /** The CPUs the executor pins jobs to, as the fingerprint watches them; all online CPUs when it does not pin. */
    private static Optional<CpuList> jobCpus(Executor executor) {
        try {
            return executor.workloadCpus().map(CpuList::parse);
        } catch (IllegalArgumentException e) {
            log.warn(
                    "the executor's CPU list is not a kernel cpu list ({}); the fingerprint watches every online CPU",
                    e.getMessage());
            return Optional.empty();
        }
    }

    /** @param inspector reads the machine's fingerprint before each job starts (the job's CPUs are its business) */
    public RunnerAgent(
            MachineConfig config,
            Target target,
            Executor executor,
            Outbox outbox,
            Updater updater,
            Clock clock,
            Duration tickInterval,
            Path workDir,
            MachineInspector inspector) {
        this.inspector = inspector;
        this.workDir = workDir;
        this.config = config;
        this.executor = executor;
        this.outbox = outbox;
        this.updater = updater;
        this.clock = clock;
        this.tickInterval = tickInterval;
        this.restTickInterval = tickInterval;
        this.server = target.server();
        HttpClient http = ServerHttpClient.forServer(target.server());
        this.channel = new ChannelClient(
                http, target.server(), target.runner(), target.key(), config.maxMessageBytes(), this::post, clock);
        this.timers = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("baton-timers").unstarted(r));
        this.output = new OutputPump(timers, this::post, clock);
    }

    /**
     * Lets the agent tick as seldom as {@code longest} while it is at rest (connected, idle, nothing
     * to report): one bare heartbeat per tick, at a third of the server's read timeout at most
     * ({@link RunnerMachine#tickWithin}). Call before {@link #run}.
     */
    public RunnerAgent restTicks(Duration longest) {
        this.restTickInterval = longest;
        return this;
    }

    /**
     * Measures the machine's noise with {@code probe} once at start, idle and before connecting
     * (so before any job), and reports it to the server after connecting (decision 0052). Call
     * before {@link #run}.
     */
    public RunnerAgent calibrateNoise(NoiseProbe probe) {
        this.noiseProbe = probe;
        this.calibrateAtStart = true;
        return this;
    }

    /**
     * Measures the machine's noise with {@code probe} only when the server asks ({@code calibrate},
     * decision 0062), idle. Call before {@link #run}.
     */
    public RunnerAgent calibrateOnRequest(NoiseProbe probe) {
        this.noiseProbe = probe;
        return this;
    }

    /** Measures at start when asked to (idle, before connecting). */
    private void measureNoiseAtStart() throws InterruptedException {
        if (noiseProbe == null || !calibrateAtStart) return;
        log.info("measuring this machine's noise (the calibration workload, idle, before taking jobs)");
        calibration = measureNoise();
    }

    /** Runs the probe, if any, and returns its figures with the machine's fingerprint now; null when it could not. */
    private RunnerMessage.Calibration measureNoise() throws InterruptedException {
        if (noiseProbe == null) {
            log.warn("the server asks for a noise calibration; this agent has no calibration configured");
            return null;
        }
        var figures = noiseProbe.measure();
        if (figures.isEmpty()) return null;
        MachineFingerprint fp = null;
        try {
            fp = inspector.read(
                    new MachineInspector.ExecutorInfo(executor.name(), executor.version(), config.version()));
        } catch (RuntimeException e) {
            log.warn("cannot read the machine fingerprint for the noise calibration", e);
        }
        log.info(
                "machine noise (coefficient of variation): {}",
                figures.get().stream()
                        .map(f -> f.workload() + " " + String.format(java.util.Locale.ROOT, "%.4f", f.cv()))
                        .collect(java.util.stream.Collectors.joining(", ")));
        return new RunnerMessage.Calibration(clock.instant(), figures.get(), fp);
    }

    /** Lets image pulls ask for fresh pull tokens over this agent's channel (issue 41). */
    public void answerPullTokens(PullTokenRequests requests) {
        requests.sendWith(channel::send);
        channel.tap(requests::answer);
    }

    /** Feed an input from any thread. */
    public void post(Input input) {
        inputs.add(input);
    }

    /** Deliver a signal (from a signal handler or a test). */
    public void signal(Input.Signal signal) {
        post(new Input.SignalReceived(signal, clock.instant()));
    }

    private static Path defaultWorkDir(Outbox outbox) {
        Path dir = outbox.directory().toAbsolutePath();
        return dir.getParent() == null ? dir : dir.getParent();
    }

    /**
     * Runs until the machine says exit; returns the exit status. First takes the work
     * directory's lock — another agent holding it is an error, {@link #EXIT_WORK_DIR_LOCKED} —
     * then sweeps what a previous agent left running, so the machine reports those jobs lost.
     */
    public int run() throws InterruptedException {
        WorkDirLock lock;
        try {
            lock = WorkDirLock.acquire(workDir);
        } catch (WorkDirLock.HeldException e) {
            log.error("not starting: {}", e.getMessage());
            return EXIT_WORK_DIR_LOCKED;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the work directory " + workDir, e);
        }
        try (lock) {
            return runLocked();
        } catch (IOException e) {
            log.warn("cannot release the work directory lock: {}", e.toString());
            return RunnerMachine.EXIT_OK;
        }
    }

    /** Tells the machine what the executor's image cache holds now (image affinity); nothing when it keeps none. */
    private void reportHeldImages() {
        executor.heldImages().ifPresent(held -> post(new Input.ImagesHeld(held.mostRecentFirst())));
    }

    private int runLocked() throws InterruptedException {
        Map<JobUuid, String> killed = new LinkedHashMap<>();
        try {
            for (Leftover leftover : executor.sweep())
                killed.merge(leftover.job(), leftover.what(), (a, b) -> a + ", " + b);
        } catch (RuntimeException e) {
            // Not fatal: the agent is still better at reporting what it knows than not running at all.
            log.error("the start-up sweep failed; what a previous agent left may still run", e);
        }
        RunnerCapabilities capabilities = executor.capabilities().withBaselineImage(executor.runsBaselineImage());
        RunnerMachine machine = new RunnerMachine(
                config.withCapabilities(capabilities),
                new Random(),
                outbox.results(),
                outbox.inflight(),
                killed,
                LogBudget.DEFAULT);
        log.info(
                "runner agent {} starting: {} slot(s), {} executor{}, channel {}",
                config.version(),
                config.slots(),
                executor.name(),
                capabilities.hypervisor() == null
                        ? ""
                        : " (" + capabilities.hypervisor() + ", " + capabilities.accelerator() + ")",
                channel.uri());
        measureNoiseAtStart();
        scheduleTick(tickInterval);
        post(new Input.Start(clock.instant()));
        reportHeldImages();
        try {
            while (true) {
                Input input = nextInput();
                if (input instanceof Input.Received(ServerMessage.Welcome welcome)) log.info("{}", connected(welcome));
                // Once per connection, before the machine's ready (which it sends as it handles this input), so a
                // spec's noise limit already sees it; the server keeps one row per calibration, so a resend costs
                // nothing.
                if (input instanceof Input.ConnectionOpened && calibration != null) channel.send(calibration);
                // The latest calibration is the one resent on a reconnect (the machine sends it now if connected).
                if (input instanceof Input.Calibrated(var measured) && measured != null) calibration = measured;
                List<Effect> effects;
                try {
                    effects = machine.handle(input);
                } catch (RuntimeException e) {
                    log.error(
                            "state machine failed on {}; input dropped",
                            input.getClass().getSimpleName(),
                            e);
                    continue;
                } finally {
                    if (input instanceof Input.Output o) output.consumed(o.job());
                }
                for (Effect effect : effects) {
                    if (effect instanceof Effect.Exit exit) {
                        log.info("runner agent exiting ({}): {}", exit.status(), exit.reason());
                        return exit.status();
                    }
                    apply(effect);
                }
                retime(machine, input instanceof Input.Tick);
            }
        } finally {
            timers.shutdownNow();
            channel.close();
            // Anything still running is stopped; its attempt stays in the in-flight records.
            executions.values().forEach(e -> e.stop(Duration.ZERO));
        }
    }

    /**
     * Schedules the next tick after the machine handled an input: after a tick, within the
     * interval the machine asks for now; after any other input, sooner only when the machine now
     * asks for a shorter interval than the one scheduled (a job offered to a runner at rest), so
     * the ticks of a busy agent keep their one-second pace.
     */
    private void retime(RunnerMachine machine, boolean ticked) {
        Duration within = machine.tickWithin(tickInterval, restTickInterval);
        if (ticked || System.nanoTime() + within.toNanos() < nextTickDue) scheduleTick(within);
    }

    private void scheduleTick(Duration delay) {
        nextTickDue = System.nanoTime() + delay.toNanos();
    }

    /**
     * The next input, or a tick when one is due first. An overdue tick comes before any queued
     * input, so a stream of output cannot hold the heartbeat back.
     */
    private Input nextInput() throws InterruptedException {
        long wait = nextTickDue - System.nanoTime();
        Input input = wait > 0 ? inputs.poll(wait, TimeUnit.NANOSECONDS) : null;
        return input != null ? input : new Input.Tick(clock.instant());
    }

    /** The line that tells an operator the runner is up: where, as whom, for which specs, how it runs jobs. */
    String connected(ServerMessage.Welcome welcome) {
        String specs = welcome.specs().isEmpty()
                ? "no spec yet (add one with 'baton runners add-spec " + welcome.runner() + " SPEC')"
                : String.join(", ", welcome.specs());
        return "connected to " + server + " as " + welcome.runner() + ", serving " + specs + ", executor "
                + executor.name();
    }

    private void apply(Effect effect) {
        try {
            switch (effect) {
                case Effect.Connect c -> channel.connect();
                case Effect.Disconnect d -> channel.close();
                case Effect.Send s -> {
                    channel.send(s.message());
                    if (s.message() instanceof RunnerMessage.Terminal t)
                        post(new Input.ResultWritten(t.job(), clock.instant()));
                }
                case Effect.ScheduleReconnect r ->
                    timers.schedule(
                            () -> post(new Input.ReconnectDue(clock.instant())),
                            r.delay().toMillis(),
                            TimeUnit.MILLISECONDS);
                case Effect.StartPrepare p -> {
                    var refused = BaselineImageRefusal.check(executor, p.job());
                    if (refused.isPresent()) {
                        // Before prepare: nothing is pulled or started for a job this executor cannot run.
                        log.info(
                                "job {}: declined ({})",
                                p.job().uuid(),
                                refused.get().getMessage());
                        post(new Input.PrepareDeclined(
                                p.job().uuid(),
                                refused.get().code(),
                                refused.get().getMessage()));
                        return;
                    }
                    output.open(p.job().uuid());
                    executions.put(p.job().uuid(), executor.prepare(p.job(), events(p.job())));
                }
                case Effect.StartWorkload w -> withExecution(w.job(), Execution::start);
                case Effect.StopWorkload s -> withExecution(s.job(), e -> e.stop(s.grace()));
                case Effect.WriteOutbox w -> outbox.writeResult(w.message(), w.attempts());
                case Effect.DeleteOutbox d -> outbox.deleteResult(d.job());
                case Effect.WriteInflight w -> outbox.writeInflight(w.record());
                case Effect.DeleteInflight d -> {
                    outbox.deleteInflight(d.job());
                    executions.remove(d.job());
                    output.close(d.job());
                }
                case Effect.ApplyUpdate u ->
                    Thread.ofVirtual().name("baton-update").start(() -> {
                        try {
                            updater.install(u.update());
                            post(new Input.UpdateInstalled(u.update().version()));
                        } catch (UpdateException e) {
                            post(new Input.UpdateFailed(u.update().version(), e.getMessage()));
                        } catch (RuntimeException e) {
                            post(new Input.UpdateFailed(u.update().version(), e.toString()));
                        }
                    });
                case Effect.Calibrate c ->
                    // Off the loop: heartbeats go on while the child JVM measures (up to its timeout).
                    Thread.ofVirtual().name("baton-noise").start(() -> {
                        RunnerMessage.Calibration measured = null;
                        try {
                            log.info("measuring this machine's noise, as the server asked (idle, taking no job)");
                            measured = measureNoise();
                        } catch (RuntimeException e) {
                            log.warn("noise calibration failed", e);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        } finally {
                            post(new Input.Calibrated(measured));
                        }
                    });
                case Effect.Exit e -> throw new IllegalStateException("handled by the loop");
            }
        } catch (RuntimeException e) {
            // A failing effect (disk error on the outbox) must not stop the agent; it is loud instead.
            log.error("effect {} failed", effect.getClass().getSimpleName(), e);
        }
    }

    private void withExecution(JobUuid job, java.util.function.Consumer<Execution> action) {
        Execution e = executions.get(job);
        if (e == null) log.warn("no execution for job {}", job);
        else action.accept(e);
    }

    /** The machine's state now, or null when it cannot be read (logged: a job never fails for it). */
    private MachineFingerprint fingerprint(JobUuid job) throws InterruptedException {
        try {
            MachineFingerprint fp = inspector.read(
                    new MachineInspector.ExecutorInfo(executor.name(), executor.version(), config.version()));
            // The operator sees on the runner itself why its numbers (or its declines) are what they are.
            fp.warnings()
                    .forEach(w -> log.info("job {}: machine fingerprint warns {}: {}", job, w.code(), w.message()));
            return fp;
        } catch (RuntimeException e) {
            log.warn("job {}: cannot read the machine fingerprint", job, e);
            return null;
        }
    }

    private ExecutionEvents events(ClaimedJob job) {
        JobUuid id = job.uuid();
        AtomicReference<MachineFingerprint> taken = new AtomicReference<>();
        return new ExecutionEvents() {
            @Override
            public void progress(String message) {
                post(new Input.PrepareProgress(id, message));
            }

            @Override
            public StartCheck beforeStart() throws InterruptedException {
                MachineFingerprint fp = fingerprint(id);
                taken.set(fp);
                return CleanMachinePolicy.check(job.spec(), fp);
            }

            @Override
            public void prepared() {
                reportHeldImages();
                post(new Input.Prepared(id, taken.get()));
            }

            @Override
            public void declined(String reason) {
                post(new Input.PrepareDeclined(id, reason));
            }

            @Override
            public void declined(DeclineCode code, String reason) {
                post(new Input.PrepareDeclined(
                        id, code, reason, code == DeclineCode.NOISY_MACHINE ? taken.get() : null));
            }

            @Override
            public void started(Instant at) {
                post(new Input.Started(id, at));
            }

            @Override
            public void finished(ExecutionResult result) {
                post(new Input.Finished(id, result));
            }

            @Override
            public void output(int iteration, LogStream stream, byte[] bytes, int offset, int length) {
                output.write(id, iteration, stream, bytes, offset, length);
            }
        };
    }
}
