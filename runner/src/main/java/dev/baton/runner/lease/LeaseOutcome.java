package dev.baton.runner.lease;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.model.IterationResult;
import java.time.Duration;
import java.util.List;

/**
 * The {@code Complete} an execution ends with on transport A: status ({@code SUCCEEDED},
 * {@code FAILED}), the last exit code and a summary, by the same rules as the runner channel's
 * terminal messages (every iteration exited 0 is success; anything else, including a stop nobody
 * asked for, is a failure with a reason). A cancel is answered with CancelAck instead, and a stale
 * lease with nothing.
 */
record LeaseOutcome(String status, Integer exitCode, String summary) {
    static final String SUCCEEDED = "SUCCEEDED";
    static final String FAILED = "FAILED";

    /** Why the runner itself stopped a job before it ended, when it did. */
    enum Stop { TIMEOUT, SHUTDOWN }

    static LeaseOutcome of(ExecutionResult r, Stop stop, long timeoutSeconds, Duration grace) {
        Integer last = lastExit(r.results());
        if (stop == Stop.TIMEOUT) return failed(last, "timed out after " + timeoutSeconds + " s (the job's timeout); output is partial");
        if (stop == Stop.SHUTDOWN) {
            return failed(last, "runner shut down: the job did not finish within the grace period of " + grace.toSeconds() + " s");
        }
        return switch (r.kind()) {
            case EXITED -> {
                List<IterationResult> results = r.results();
                for (int i = 0; i < results.size(); i++) {
                    Integer code = results.get(i).exitCode();
                    // Iterations count from 0 everywhere (reports, logs, the API).
                    if (code == null || code != 0) yield failed(code, "iteration " + i + " exited with code " + code);
                }
                yield new LeaseOutcome(SUCCEEDED, last == null ? 0 : last, "all " + results.size() + " iteration(s) exited 0");
            }
            case OUT_OF_MEMORY -> failed(last, "out of memory: the workload was killed at its memory limit"
                    + (r.detail() == null ? "" : " (" + r.detail() + ")"));
            case ERROR -> failed(last, "executor error: " + r.detail());
            case STOPPED -> failed(last, "workload stopped unexpectedly");
        };
    }

    /**
     * A job the executor could not start (the image did not pull, the VM did not boot). On this
     * transport AckLease already started the attempt, so it fails with the reason; the runner
     * channel would decline it instead (docs/runner.md, "Transport A").
     */
    static LeaseOutcome notStarted(String reason) {
        return failed(null, "could not start: " + reason);
    }

    private static LeaseOutcome failed(Integer exit, String summary) {
        return new LeaseOutcome(FAILED, exit, summary);
    }

    private static Integer lastExit(List<IterationResult> results) {
        return results.isEmpty() ? null : results.getLast().exitCode();
    }
}
