package dev.baton.runner.lease;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.model.IterationResult;
import java.time.Duration;
import java.util.List;

/**
 * The {@code Complete} an execution ends with on the NATS transport: status ({@code SUCCEEDED},
 * {@code FAILED}), the last exit code and a summary, by the same rules as the runner channel's
 * terminal messages (every iteration exited 0 is success; anything else, including a stop nobody
 * asked for, is a failure with a reason). A cancel is answered with CancelAck instead, and a stale
 * lease with nothing. {@code failure} says why a failed one failed, as {@code failed} does on the
 * runner channel (issue 41), null for success.
 */
record LeaseOutcome(String status, Integer exitCode, String summary, FailureCode failure) {
    static final String SUCCEEDED = "SUCCEEDED";
    static final String FAILED = "FAILED";

    /** Why the runner itself stopped a job before it ended, when it did. */
    enum Stop {
        TIMEOUT,
        SHUTDOWN
    }

    static LeaseOutcome of(ExecutionResult r, Stop stop, long timeoutSeconds, Duration grace) {
        Integer last = lastExit(r.results());
        if (stop == Stop.TIMEOUT) {
            return failed(
                    last,
                    "timed out after " + timeoutSeconds + " s (the job's timeout); output is partial",
                    FailureCode.TIMEOUT);
        }
        if (stop == Stop.SHUTDOWN) {
            return failed(
                    last,
                    "runner shut down: the job did not finish within the grace period of " + grace.toSeconds() + " s",
                    FailureCode.RUNNER_SHUTDOWN);
        }
        return switch (r.kind()) {
            case EXITED -> {
                List<IterationResult> results = r.results();
                for (int i = 0; i < results.size(); i++) {
                    Integer code = results.get(i).exitCode();
                    // Iterations count from 0 everywhere (reports, logs, the API).
                    if (code == null || code != 0)
                        yield failed(code, "iteration " + i + " exited with code " + code, FailureCode.EXIT_CODE);
                }
                yield new LeaseOutcome(
                        SUCCEEDED, last == null ? 0 : last, "all " + results.size() + " iteration(s) exited 0", null);
            }
            case OUT_OF_MEMORY ->
                failed(
                        last,
                        "out of memory: the workload was killed at its memory limit"
                                + (r.detail() == null ? "" : " (" + r.detail() + ")"),
                        FailureCode.OUT_OF_MEMORY);
            case ERROR -> failed(last, "executor error: " + r.detail(), FailureCode.EXECUTOR_ERROR);
            case STOPPED -> failed(last, "workload stopped unexpectedly", FailureCode.STOPPED);
        };
    }

    /**
     * A job the executor could not start (the image did not pull, the VM did not boot). On this
     * transport AckLease already started the attempt, so it fails with the reason; the runner
     * channel would decline it instead (docs/runner.md, "Transport A"). {@code why} is the code
     * that decline would carry, so the server tells a pull failure from the job's own (issue 41).
     */
    static LeaseOutcome notStarted(DeclineCode why, String reason) {
        return failed(null, "could not start: " + reason, FailureCode.ofDecline(why));
    }

    private static LeaseOutcome failed(Integer exit, String summary, FailureCode failure) {
        return new LeaseOutcome(FAILED, exit, summary, failure);
    }

    private static Integer lastExit(List<IterationResult> results) {
        return results.isEmpty() ? null : results.getLast().exitCode();
    }
}
