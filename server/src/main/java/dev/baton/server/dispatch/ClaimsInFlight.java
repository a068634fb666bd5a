package dev.baton.server.dispatch;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The sets of specs this node is claiming for right now, so that at most one claim for a set is in
 * flight at a time (issue 13, docs/decisions/0022-one-claim-in-flight-per-spec-set.md).
 *
 * <p>Two pumps that claim for the same set of specs at once race for the same pending jobs: one
 * wins, the other's claim (a write transaction, and on PostgreSQL a {@code SKIP LOCKED} scan that
 * passes over the winner's locked row) finds nothing. So a pump that finds a claim for its set in
 * flight does not claim; it asks the pump in flight to {@link #claimAgain claim again} for that
 * set when done, and that pump then serves every waiter of the set that is still idle, with what
 * it then finds pending. Nothing is lost: whatever made the second pump run (a job committed, a
 * runner ready, a job finished) happened before the flight {@link #end ended}, and the flight's
 * next claim, which begins after that, sees it.
 *
 * <p>A claim is in flight from the moment its pump takes the set's waiters until it gave them back
 * and sent their jobs, so every waiter held by a pump belongs to a set in flight. Not thread-safe:
 * the dispatcher calls it under its lock, in the same critical sections that take and give back
 * waiters (which is what makes "ended" and "asked to claim again" exclusive).
 */
final class ClaimsInFlight {
    /** The sets in flight, each with whether another pump asked for one more claim since it began. */
    private final Map<Set<Long>, Boolean> againAsked = new HashMap<>();

    boolean inFlight(Set<Long> specIds) {
        return againAsked.containsKey(specIds);
    }

    /** The caller will claim for {@code specIds}; no other claim for them may be in flight. */
    void begin(Set<Long> specIds) {
        if (againAsked.putIfAbsent(specIds, false) != null) throw new IllegalStateException("a claim for " + specIds + " is already in flight");
    }

    /** Another pump had waiters of {@code specIds} to serve while a claim for them is in flight: that flight claims once more. */
    void claimAgain(Set<Long> specIds) {
        againAsked.replace(specIds, true);
    }

    /** The claim for {@code specIds} is done; true when it was asked to claim again (the caller then {@link #begin}s anew). */
    boolean end(Set<Long> specIds) {
        Boolean again = againAsked.remove(specIds);
        if (again == null) throw new IllegalStateException("no claim for " + specIds + " is in flight");
        return again;
    }
}
