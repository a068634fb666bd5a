package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.DrainState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner's mode (seed 002), set by signals and by the server's {@code drain}: quiet (no new
 * jobs), running again, and the graceful shutdown — decline what has not started, let running
 * jobs finish within the grace period, stop the rest, deliver the results, exit.
 */
final class Draining {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final Claiming claiming;
    /** When running jobs are stopped; set when the shutdown begins. */
    private Instant graceDeadline;
    /** When the agent exits even if jobs or results are still outstanding. */
    private Instant exitDeadline;

    Draining(MachineState state, Claiming claiming) {
        this.s = state;
        this.claiming = claiming;
        claiming.exitWhenDone = this::maybeExit;
    }

    void onDrain(DrainState state, List<Effect> out) {
        switch (state) {
            case RUNNING -> resume(out);
            case QUIET -> quiet();
            case TERMINATE -> beginShutdown(out);
        }
    }

    void onSignal(Input.SignalReceived signal, List<Effect> out) {
        s.now = signal.now();
        switch (signal.signal()) {
            case TERMINATE -> beginShutdown(out);
            case QUIET -> quiet();
            case RESUME -> resume(out);
        }
    }

    private void quiet() {
        if (s.mode == MachineState.Mode.RUNNING) {
            log.info("quiet: taking no new jobs");
            s.mode = MachineState.Mode.QUIET;
        }
    }

    private void resume(List<Effect> out) {
        if (s.shuttingDown || s.singleJobTaken) {
            log.info(
                    "not resuming: the runner is {}",
                    s.shuttingDown ? "shutting down" : "a single-job runner that had its job");
            return;
        }
        if (s.mode != MachineState.Mode.RUNNING) log.info("running: taking jobs again");
        s.mode = MachineState.Mode.RUNNING;
        claiming.maybeReady(out);
    }

    private void beginShutdown(List<Effect> out) {
        if (s.shuttingDown) {
            log.info("already shutting down");
            return;
        }
        s.shuttingDown = true;
        if (s.mode == MachineState.Mode.RUNNING) s.mode = MachineState.Mode.QUIET;
        graceDeadline = s.now.plus(s.config.grace());
        // After the grace period: stop time, then a little time for the results to be acknowledged.
        exitDeadline = graceDeadline.plus(s.config.stopGrace()).plus(Duration.ofSeconds(5));
        log.info(
                "shutting down: {} job(s) in flight may finish within {} s",
                s.jobs.size(),
                s.config.grace().toSeconds());
        // Attempts that never started lose nothing by going back to the queue now.
        for (HeldJob h : s.jobs.values()) {
            if (h.phase != HeldJob.Phase.RUNNING && h.stop == null) {
                h.stop = HeldJob.StopReason.SHUTDOWN;
                out.add(new Effect.StopWorkload(h.id(), Duration.ZERO));
            }
        }
        maybeExit(out);
    }

    /** On the tick, last: the grace period's end stops the remaining jobs, the exit deadline ends the agent. */
    void onTick(List<Effect> out) {
        if (s.shuttingDown && s.mode != MachineState.Mode.TERMINATE && !s.now.isBefore(graceDeadline)) {
            s.mode = MachineState.Mode.TERMINATE;
            log.info("grace period over: stopping {} job(s)", s.jobs.size());
            for (HeldJob h : s.jobs.values()) {
                if (h.stop == null) {
                    h.stop = HeldJob.StopReason.SHUTDOWN;
                    out.add(new Effect.StopWorkload(h.id(), s.config.stopGrace()));
                }
            }
        }
        if (s.shuttingDown && exitDeadline != null && !s.now.isBefore(exitDeadline)) {
            if (!s.jobs.isEmpty()) log.error("exiting with {} job(s) that did not stop", s.jobs.size());
            if (!s.pending.isEmpty())
                log.warn("exiting with {} unacknowledged result(s); they stay in the outbox", s.pending.size());
            s.exit(RunnerMachine.EXIT_OK, "shut down after the grace period", out);
            return;
        }
        maybeExit(out);
    }

    /** Shutting down and no job left: exit once the results are delivered, or at once when they cannot be. */
    void maybeExit(List<Effect> out) {
        if ((!s.shuttingDown && !s.singleJobTaken) || s.exited || !s.jobs.isEmpty()) return;
        String done = s.shuttingDown ? "shut down" : "single-job runner: its job is reported";
        if (s.pending.isEmpty() && s.unsentDeclines.isEmpty()) {
            s.exit(RunnerMachine.EXIT_OK, done, out);
        } else if (s.shuttingDown && !s.link.isConnected() && !s.link.is(ServerLink.State.CONNECTING)) {
            s.exit(RunnerMachine.EXIT_OK, done + "; undelivered results stay in the outbox", out);
        }
    }
}
