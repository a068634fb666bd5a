package dev.baton.runner.executor;

import java.time.Duration;

/** One job's execution, as the agent drives it. Both calls return at once. */
public interface Execution {
    /** Start the workload after {@link ExecutionEvents#prepared()}. */
    void start();

    /**
     * Stop at any phase: abort a prepare, or TERM the workload, wait {@code grace}, then KILL.
     * The execution then reports {@link ExecutionEvents#finished} with the partial output.
     */
    void stop(Duration grace);
}
