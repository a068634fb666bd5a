package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The store's part for runner pools (issue 43): pools, the machines their providers started, and
 * the one scaler lease across server nodes. Machines live here, not in a node's memory, so a node
 * that dies while a machine boots leaves it to the next scaler, which adopts or stops it.
 */
public interface Pools {
    /** CONFLICT when the slug is taken. */
    Pool createPool(String slug, PoolSettings settings, Instant now);

    Optional<Pool> findPool(String slugOrUuid);

    List<Pool> listPools();

    /** NOT_FOUND if unknown. */
    Pool updatePool(long poolId, PoolSettings settings, Instant now);

    /** Deletes the pool and its machine rows; false if unknown. The caller stops its machines first. */
    boolean deletePool(long poolId);

    /**
     * A failing provider: no start before {@code until}, {@code reason} shown on the pool (and on
     * its waiting jobs); {@code failedStart} counts one more failed start. {@code until} null
     * clears the back-off and the reason.
     */
    void setBackoff(long poolId, Instant until, String reason, boolean failedStart, Instant now);

    /** A new machine, {@code starting}, of {@code node}, with the single-job runner made for it and the job that runner is bound to (null: an idle one). */
    PoolMachine addMachine(long poolId, Long runnerId, Long jobId, String node, Instant now);

    /** Records what the provider calls the machine once its start returned. */
    void setProviderId(long machineId, String providerId, Instant now);

    /**
     * Compare-and-set: moves the machine from one of {@code from} to {@code to}, with its reason and
     * job; an ended state sets {@code ended}. False when it was in none of {@code from}.
     */
    boolean moveMachine(
            long machineId, Set<PoolMachineState> from, PoolMachineState to, String reason, Long jobId, Instant now);

    /** The pool's machines that have not ended, oldest first. */
    List<PoolMachine> liveMachines(long poolId);

    /** The pool's machines, the live ones and the last {@code endedLimit} that ended, newest first. */
    List<PoolMachine> machines(long poolId, int endedLimit);

    /**
     * Takes or renews the scaler lease for {@code node} until {@code until}: true when this node
     * holds it (it held it, or the last holder's expired before {@code now}).
     */
    boolean takeScalerLease(String node, Instant now, Instant until);
}
