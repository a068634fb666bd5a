package dev.baton.runner.machine;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.IterationResult;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishing: a held job ends — the executor finished it, or could not prepare it — and this
 * decides what is reported for it (from how it ended and why it was stopped), hands that to
 * {@link Reporting}, and lets the freed slot be used (update, {@code ready}, exit).
 */
final class Finishing {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final Reporting reporting;
    private final Claiming claiming;
    private final Updating updating;
    private final Draining draining;

    Finishing(MachineState state, Reporting reporting, Claiming claiming, Updating updating, Draining draining) {
        this.s = state;
        this.reporting = reporting;
        this.claiming = claiming;
        this.updating = updating;
        this.draining = draining;
    }

    void onPrepareDeclined(Input.PrepareDeclined d, List<Effect> out) {
        HeldJob h = s.jobs.get(d.job());
        if (h == null || h.phase == HeldJob.Phase.RUNNING) {
            s.unexpected(d, h == null ? "unknown job" : "job is running");
            return;
        }
        s.jobs.remove(h.id());
        out.add(new Effect.DeleteInflight(h.id()));
        if (h.stop == HeldJob.StopReason.STALE) {
            log.info("job {}: could not prepare ({}), lease already stale", h.id(), d.reason());
        } else if (h.stop == HeldJob.StopReason.CANCEL) {
            reporting.finish(new RunnerMessage.Canceled(h.id(), h.lease(), List.of()), out);
        } else {
            log.info("job {}: declined: {}", h.id(), d.reason());
            reporting.sendOrKeep(
                    new RunnerMessage.Declined(h.id(), h.lease(), d.code().wireName(), d.reason(), d.fingerprint()),
                    out);
        }
        afterJobEnded(out);
    }

    void onFinished(Input.Finished f, List<Effect> out) {
        HeldJob h = s.jobs.remove(f.job());
        if (h == null) {
            s.unexpected(f, "unknown job");
            return;
        }
        ExecutionResult r = f.result();
        List<IterationResult> results = r.results();
        out.add(new Effect.DeleteInflight(h.id()));
        if (h.phase != HeldJob.Phase.RUNNING) {
            // It never started: no run time, no failure. Cancel is answered, anything else declined.
            if (h.stop == HeldJob.StopReason.CANCEL)
                reporting.finish(new RunnerMessage.Canceled(h.id(), h.lease(), List.of()), out);
            else if (h.stop != HeldJob.StopReason.STALE) {
                boolean shutdown = h.stop == HeldJob.StopReason.SHUTDOWN;
                String reason = shutdown
                        ? "runner shutting down"
                        : "could not start: "
                                + (r.detail() == null ? r.kind().name().toLowerCase() : r.detail());
                reporting.sendOrKeep(
                        new RunnerMessage.Declined(
                                h.id(),
                                h.lease(),
                                shutdown ? DeclineCode.SHUTTING_DOWN : DeclineCode.EXECUTOR_ERROR,
                                reason),
                        out);
            }
            afterJobEnded(out);
            return;
        }
        RunnerMessage.Terminal terminal = switch (h.stop) {
            case STALE -> null;
            case CANCEL -> new RunnerMessage.Canceled(h.id(), h.lease(), results);
            case TIMEOUT ->
                RunnerMessage.Failed.because(
                        h.id(),
                        h.lease(),
                        results,
                        "timed out after " + h.job.timeout() + " s (the job's timeout); output is partial",
                        FailureCode.TIMEOUT);
            case SHUTDOWN ->
                RunnerMessage.Failed.because(
                        h.id(),
                        h.lease(),
                        results,
                        "runner shut down: the job did not finish within the grace period of "
                                + s.config.grace().toSeconds() + " s",
                        FailureCode.RUNNER_SHUTDOWN);
            case null -> natural(h, r);
        };
        if (terminal == null) log.info("job {}: stopped after a stale lease; nothing to report", h.id());
        else reporting.finish(terminal, out);
        afterJobEnded(out);
    }

    /** The terminal message of an execution that ended without being stopped by the runner. */
    private static RunnerMessage.Terminal natural(HeldJob h, ExecutionResult r) {
        List<IterationResult> results = r.results();
        return switch (r.kind()) {
            case EXITED -> {
                for (int i = 0; i < results.size(); i++) {
                    Integer code = results.get(i).exitCode();
                    if (code == null || code != 0) {
                        // Iterations count from 0 everywhere (reports, logs, the API).
                        yield RunnerMessage.Failed.because(
                                h.id(),
                                h.lease(),
                                results,
                                "iteration " + i + " exited with code " + code,
                                FailureCode.EXIT_CODE);
                    }
                }
                yield new RunnerMessage.Completed(h.id(), h.lease(), results);
            }
            case OUT_OF_MEMORY ->
                RunnerMessage.Failed.because(
                        h.id(),
                        h.lease(),
                        results,
                        "out of memory: the workload was killed at its memory limit"
                                + (r.detail() == null ? "" : " (" + r.detail() + ")"),
                        FailureCode.OUT_OF_MEMORY);
            case ERROR ->
                RunnerMessage.Failed.because(
                        h.id(), h.lease(), results, "executor error: " + r.detail(), FailureCode.EXECUTOR_ERROR);
            // Stopped although nobody asked: treat as a failure, never as success.
            case STOPPED ->
                RunnerMessage.Failed.because(
                        h.id(), h.lease(), results, "workload stopped unexpectedly", FailureCode.STOPPED);
        };
    }

    /** A slot is free: a waiting update may go in, or more work be asked for, or the shutdown end. */
    private void afterJobEnded(List<Effect> out) {
        updating.maybeApplyUpdate(out);
        claiming.maybeReady(out);
        draining.maybeExit(out);
    }
}
