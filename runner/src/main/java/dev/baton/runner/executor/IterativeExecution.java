package dev.baton.runner.executor;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle every executor shares, on one thread per job: prepare, wait for start, run the
 * iterations one after another (stopping at the first non-zero exit), collect output, clean up
 * always. Stop works at any point: it aborts a prepare at its next check, and terminates a
 * running iteration with TERM, then KILL after the grace period. Subclasses say how to prepare,
 * launch, signal and inspect one iteration.
 */
abstract class IterativeExecution implements Execution {
    private static final Logger log = LoggerFactory.getLogger(IterativeExecution.class);

    /** Thrown by {@link #checkStopped()} to abandon a prepare. */
    static final class Stopped extends RuntimeException {
        Stopped() {
            super("stopped", null, false, false);
        }
    }

    protected final ClaimedJob job;
    protected final ExecutionEvents events;
    protected final OutputLimits limits;
    private final Clock clock;

    private final Object lock = new Object();
    private boolean startRequested;
    private Duration stopGrace;
    private Process current;
    private int currentIteration;

    IterativeExecution(ClaimedJob job, ExecutionEvents events, OutputLimits limits, Clock clock) {
        this.job = job;
        this.events = events;
        this.limits = limits;
        this.clock = clock;
    }

    /** Provision everything; call {@link #checkStopped()} between long steps. */
    protected abstract void prepare() throws DeclinedException, IOException;

    /**
     * Starts iteration {@code i} (1-based); stdout and stderr must be pipes. A
     * {@link DeclinedException} says the runner could not provide the environment (a VM that did
     * not boot): before the first iteration has started the job is declined, later it fails.
     */
    protected abstract Process launch(int iteration) throws IOException, DeclinedException;

    /** Sends TERM (or KILL when {@code kill}) to the iteration's workload and everything it started. */
    protected abstract void signal(Process process, int iteration, boolean kill);

    /** After the iteration exited: did the kernel kill it at the memory limit? Null if not, else a detail. */
    protected abstract String outOfMemory(int iteration);

    /** After the iteration exited: the requested files. */
    protected abstract FileCollector.Collected collect(int iteration);

    /** Per-iteration cleanup (delete the container); must not throw. */
    protected abstract void afterIteration(int iteration);

    /** Final cleanup; must not throw. */
    protected abstract void cleanup();

    final void begin() {
        Thread.ofPlatform()
                .name("baton-job-" + job.uuid().toString().substring(0, 8))
                .daemon()
                .start(this::lifecycle);
    }

    @Override
    public final void start() {
        synchronized (lock) {
            startRequested = true;
            lock.notifyAll();
        }
    }

    @Override
    public final void stop(Duration grace) {
        Process p;
        int iteration;
        synchronized (lock) {
            if (stopGrace != null) return;
            stopGrace = grace;
            lock.notifyAll();
            p = current;
            iteration = currentIteration;
        }
        if (p != null) terminate(p, iteration, grace);
    }

    protected final boolean stopRequested() {
        synchronized (lock) {
            return stopGrace != null;
        }
    }

    protected final void checkStopped() {
        if (stopRequested()) throw new Stopped();
    }

    private void terminate(Process p, int iteration, Duration grace) {
        Thread.ofPlatform().daemon().name("baton-stop").start(() -> {
            signal(p, iteration, false);
            try {
                if (!grace.isZero() && p.waitFor(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (p.isAlive()) signal(p, iteration, true);
        });
    }

    /**
     * Runs everything and reports exactly one final event — after {@link #cleanup()}, so a slot
     * is only free again once its container and bundle are gone.
     */
    private void lifecycle() {
        Runnable report;
        try {
            report = phases();
        } catch (RuntimeException e) {
            log.error("job {}: executor failed", job.uuid(), e);
            report = () -> events.finished(ExecutionResult.error(List.of(), e.toString()));
        }
        try {
            cleanup();
        } catch (RuntimeException e) {
            log.warn("job {}: cleanup failed", job.uuid(), e);
        }
        report.run();
    }

    private Runnable phases() {
        try {
            prepare();
        } catch (DeclinedException e) {
            return () -> events.declined(e.code(), e.getMessage());
        } catch (Stopped e) {
            return () -> events.finished(ExecutionResult.stopped(List.of()));
        } catch (IOException | RuntimeException e) {
            log.warn("job {}: prepare failed", job.uuid(), e);
            return () -> events.declined(DeclineCode.EXECUTOR_ERROR, "could not prepare: " + e.getMessage());
        }
        try {
            if (!stopRequested()) {
                StartCheck check = events.beforeStart();
                if (check.declines()) return () -> events.declined(check.decline(), check.reason());
            }
            synchronized (lock) {
                if (stopGrace == null) events.prepared();
                while (!startRequested && stopGrace == null) lock.wait();
                if (stopGrace != null) return () -> events.finished(ExecutionResult.stopped(List.of()));
            }
            ExecutionResult result = iterations();
            return () -> events.finished(result);
        } catch (DeclinedException e) {
            return () -> events.declined(e.code(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return () -> events.finished(ExecutionResult.error(List.of(), "interrupted"));
        }
    }

    /** Throws {@link DeclinedException} only when the first iteration could not be started (nothing has run yet). */
    private ExecutionResult iterations() throws InterruptedException, DeclinedException {
        List<IterationResult> results = new ArrayList<>();
        int count = job.config().iterationsOrDefault();
        PairedStop pairedStop = PairedStop.of(job.config().paired(), clock);
        for (int i = 1; i <= count; i++) {
            if (stopRequested()) return ExecutionResult.stopped(results);
            if (pairedStop != null && i % 2 == 1 && pairedStop.enough(results)) break;
            Process p;
            try {
                p = launch(i);
            } catch (IOException e) {
                afterIteration(i);
                return ExecutionResult.error(results, "cannot start iteration " + i + ": " + e.getMessage());
            } catch (DeclinedException e) {
                afterIteration(i);
                if (i == 1) throw e;
                return ExecutionResult.error(results, "cannot start iteration " + i + ": " + e.getMessage());
            }
            int iteration = i - 1; // the wire counts iterations from 0
            BoundedCapture out = new BoundedCapture(
                    p.getInputStream(),
                    limits.streamBytes(),
                    "baton-stdout",
                    (b, off, len) -> events.output(iteration, LogStream.STDOUT, b, off, len));
            BoundedCapture err = new BoundedCapture(
                    p.getErrorStream(),
                    limits.streamBytes(),
                    "baton-stderr",
                    (b, off, len) -> events.output(iteration, LogStream.STDERR, b, off, len));
            Duration pendingStop;
            synchronized (lock) {
                current = p;
                currentIteration = i;
                pendingStop = stopGrace;
            }
            if (i == 1) events.started(clock.instant());
            if (pendingStop != null) terminate(p, i, pendingStop);
            int code = p.waitFor();
            synchronized (lock) {
                current = null;
            }
            // Background children may hold the pipes open; the result must not wait for them.
            String stdout = out.await(2000);
            String stderr = err.await(2000);
            String oom = outOfMemory(i);
            FileCollector.Collected files = oom == null ? collect(i) : new FileCollector.Collected(Map.of(), List.of());
            afterIteration(i);
            results.add(new IterationResult(code, stdout, stderr, files.files()));
            if (oom != null) return ExecutionResult.outOfMemory(results, oom);
            if (!files.refused().isEmpty()) {
                return ExecutionResult.error(results, "output file refused: " + String.join("; ", files.refused()));
            }
            if (stopRequested()) return ExecutionResult.stopped(results);
            if (code != 0) break;
        }
        return ExecutionResult.exited(results);
    }
}
