package dev.baton.store;

import dev.baton.protocol.model.RunnerHost;
import java.time.Instant;

/**
 * A machine the store recorded for a runner (issue 41): what its agent reported and the address
 * it connected from ({@code host}), and when the server first saw it. A runner that rejoins after
 * an update (a new process) is a new machine, seen later.
 */
public record KnownMachine(long id, long runnerId, RunnerHost host, Instant seen) {}
