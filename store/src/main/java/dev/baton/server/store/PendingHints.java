package dev.baton.server.store;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What this node's claims saw behind the job they took, for the dispatcher's next question
 * whether anything is pending ({@link Runs#hasPendingFor}, decision 0059): on PostgreSQL the
 * claim's statement also says whether another job of the claiming runner's specs is pending, and
 * when one is, the next question for exactly those specs is answered yes without a statement.
 *
 * <p>A hint answers one question and is gone. Wrong only in one direction: another claim (here or
 * on another node) may have taken that job since, and then the claim the answer leads to finds
 * nothing, one empty claim, as when the store is asked and a claim races the answer. Never the
 * other way: a hint never answers "nothing pending" (that is always read).
 */
final class PendingHints {
    private final Set<Set<Long>> more = ConcurrentHashMap.newKeySet();

    /** A claim for {@code specIds} saw another pending job of them besides the one it took. */
    void moreBehind(Collection<Long> specIds) {
        more.add(Set.copyOf(specIds));
    }

    /** Whether a claim saw more pending for exactly these specs since the last question; consumes the hint. */
    boolean take(Collection<Long> specIds) {
        return !more.isEmpty() && more.remove(Set.copyOf(specIds));
    }
}
