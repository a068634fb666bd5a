package dev.baton.runner.executor;

import dev.baton.runner.machine.ExecutionResult;
import java.time.Instant;

/** What an execution reports. Exactly one of {@link #declined} and {@link #finished} ends it. */
public interface ExecutionEvents {
    void progress(String message);

    void prepared();

    void declined(String reason);

    void started(Instant at);

    void finished(ExecutionResult result);
}
