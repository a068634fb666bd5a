package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The store's part for fleet upgrades (issue 41, docs/operations.md "Upgrading the fleet"): rolls
 * and their steps, kept here so that any node can resume a roll whose node died, and a lease on
 * the running roll so that only one node drives it. At most one roll runs at a time.
 */
public interface RunnerRolls {
    /** Starts a roll over {@code runnerIds}, in that order; CONFLICT when a roll is running already. */
    Roll createRoll(NewRoll roll, List<Long> runnerIds, Instant now);

    Optional<Roll> findRoll(UUID uuid);

    /** The most recent rolls first, at most {@code limit}. */
    List<Roll> listRolls(int limit);

    /**
     * The running roll, when {@code node} holds its lease after this call: it held it already, or
     * nobody did, or the holder's lease expired before {@code now} (its node died). The lease then
     * runs until {@code until}. Empty when no roll runs or another node holds it.
     */
    Optional<Roll> leaseRunningRoll(String node, Instant now, Instant until);

    /** Records a step's progress; only while the roll is running (false otherwise: another node ended it). */
    boolean updateStep(
            long rollId,
            int position,
            String state,
            String fromVersion,
            Instant started,
            Instant ended,
            String message,
            Instant now);

    /** Ends the running roll as {@code succeeded} or {@code failed} (with {@code reason}) and lets its lease go. */
    boolean endRoll(long rollId, String state, String reason, Instant now);
}
