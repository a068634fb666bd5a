package dev.baton.dispatch;

import dev.baton.store.ClaimFilter;
import java.util.Set;

/**
 * A runner waiting in the {@link Dispatcher} for work: how many more jobs it takes and which specs
 * it serves. The flags let pumps serve waiters without holding the dispatcher's lock across I/O
 * (see its class comment): which pump holds the waiter, and what happened meanwhile.
 */
final class Waiter {
    final RunnerSession session;
    final Set<Long> specIds;
    /** A router's narrowing and preference (docs/protocol.md, "Routers"); NONE for a runner. */
    final ClaimFilter filter;
    /** Touched only by the pump that holds the waiter (busy), or under the lock when none does. */
    int slots;
    /** Held by a pump (guarded by the dispatcher's lock, as are the flags below). */
    boolean busy;
    /** Another pump skipped this waiter while it was busy: look at it again on release. */
    boolean missed;
    /** Its poll timeout fired while busy: end the wait on release if it still waits. */
    boolean expired;

    Waiter(RunnerSession session, Set<Long> specIds, ClaimFilter filter, int slots) {
        this.session = session;
        this.specIds = specIds;
        this.filter = filter;
        this.slots = slots;
    }
}
