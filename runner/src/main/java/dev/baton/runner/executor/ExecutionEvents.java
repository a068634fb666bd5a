package dev.baton.runner.executor;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.LogStream;
import java.time.Instant;

/** What an execution reports. Exactly one of {@link #declined} and {@link #finished} ends it. */
public interface ExecutionEvents {
    void progress(String message);

    /**
     * Asked after the prepare succeeded and before {@link #prepared()}, on the execution's thread:
     * may the workload start here? A decline ends the execution with {@link #declined} after its
     * cleanup. By default: go.
     */
    default StartCheck beforeStart() throws InterruptedException {
        return StartCheck.GO;
    }

    void prepared();

    void declined(String reason);

    /** A decline with its code (what the server stores and shows); by default only the reason is passed on. */
    default void declined(DeclineCode code, String reason) {
        declined(reason);
    }

    void started(Instant at);

    void finished(ExecutionResult result);

    /**
     * Bytes the workload printed (and the capture kept), from the capture's own thread, for live
     * logs. Must return at once: the capture never waits on the network. Iterations count from 0.
     */
    default void output(int iteration, LogStream stream, byte[] bytes, int offset, int length) {}
}
