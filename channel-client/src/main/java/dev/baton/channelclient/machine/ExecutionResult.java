package dev.baton.channelclient.machine;

import dev.baton.protocol.model.IterationResult;
import java.util.List;

/**
 * How an execution ended, as the executor saw it, with the iterations it has (possibly partial).
 * Why it was stopped (cancel, timeout, shutdown, stale lease) is the machine's knowledge, not the
 * executor's, so the machine decides which terminal message it becomes.
 */
public record ExecutionResult(Kind kind, List<IterationResult> results, String detail) {
    public ExecutionResult {
        results = List.copyOf(results);
    }

    public enum Kind {
        /** Every iteration ran to its exit (exit codes are in the results). */
        EXITED,
        /** Stopped on request before it finished. */
        STOPPED,
        /** The kernel killed the workload at its memory limit. */
        OUT_OF_MEMORY,
        /** The executor itself failed after the workload started. */
        ERROR
    }

    public static ExecutionResult exited(List<IterationResult> results) {
        return new ExecutionResult(Kind.EXITED, results, null);
    }

    public static ExecutionResult stopped(List<IterationResult> results) {
        return new ExecutionResult(Kind.STOPPED, results, null);
    }

    public static ExecutionResult outOfMemory(List<IterationResult> results, String detail) {
        return new ExecutionResult(Kind.OUT_OF_MEMORY, results, detail);
    }

    public static ExecutionResult error(List<IterationResult> results, String detail) {
        return new ExecutionResult(Kind.ERROR, results, detail);
    }
}
