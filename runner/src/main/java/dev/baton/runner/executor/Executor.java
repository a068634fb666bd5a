package dev.baton.runner.executor;

import dev.baton.protocol.model.ClaimedJob;

/**
 * Runs claimed jobs: provisions the environment, runs the iterations, stops on request. Each
 * job gets its own {@link Execution}, which reports through {@link ExecutionEvents} from its own
 * thread. Implementations: {@link ProcessExecutor} (trusted runners), {@link RuncExecutor}.
 */
public interface Executor {
    /** A short name for logs and {@code --executor}. */
    String name();

    /** Starts preparing the job in the background and returns its handle at once. */
    Execution prepare(ClaimedJob job, ExecutionEvents events);

    /** Removes what a crashed agent left behind (containers, bundles). Called once at start. */
    default void sweep() {}
}
