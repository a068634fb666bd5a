package dev.baton.store;

import java.time.Instant;
import java.util.UUID;

/**
 * A machine a pool's provider started (issue 43), from its start to its end: which runner it is
 * (a single-job runner created for it), what the provider calls it, the job it took, the node that
 * started it, and why it ended (boot timeout, provider failure, idle, after its job, shrink).
 */
public record PoolMachine(
        long id,
        UUID uuid,
        long poolId,
        PoolMachineState state,
        String providerId,
        Long runnerId,
        Long jobId,
        String node,
        String reason,
        Instant started,
        Instant registered,
        Instant idleSince,
        Instant ended,
        Instant modified) {}
