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
    /** What other pumps asked of a flight by the time it ends. */
    enum Again {
        /** Nothing: the flight ends. */
        NO,
        /** Another pump had waiters of the set to serve (a runner ready, a job finished, a look again). */
        ASKED,
        /** As {@link #ASKED}, and one of them came for a job of the set just committed on this node. */
        ASKED_FOR_A_JOB_JUST_COMMITTED
    }

    /** The sets in flight, each with what was asked of it since it began. */
    private final Map<Set<Long>, Again> flights = new HashMap<>();

    boolean inFlight(Set<Long> specIds) {
        return flights.containsKey(specIds);
    }

    /** The caller will claim for {@code specIds}; no other claim for them may be in flight. */
    void begin(Set<Long> specIds) {
        if (flights.putIfAbsent(specIds, Again.NO) != null) throw new IllegalStateException("a claim for " + specIds + " is already in flight");
    }

    /**
     * Another pump had waiters of {@code specIds} to serve while a claim for them is in flight
     * ({@code jobJustCommitted}: for a job of the set just committed here): that flight claims once more.
     */
    void claimAgain(Set<Long> specIds, boolean jobJustCommitted) {
        flights.computeIfPresent(specIds, (k, asked) -> jobJustCommitted || asked == Again.ASKED_FOR_A_JOB_JUST_COMMITTED
                ? Again.ASKED_FOR_A_JOB_JUST_COMMITTED : Again.ASKED);
    }

    /** The claim for {@code specIds} is done: what was asked of it (unless {@link Again#NO}, the caller {@link #begin}s anew). */
    Again end(Set<Long> specIds) {
        Again asked = flights.remove(specIds);
        if (asked == null) throw new IllegalStateException("no claim for " + specIds + " is in flight");
        return asked;
    }
}
