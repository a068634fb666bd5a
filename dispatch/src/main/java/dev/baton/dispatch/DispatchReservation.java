package dev.baton.dispatch;

import dev.baton.store.ClaimRequest;
import java.time.Instant;
import java.util.List;

/**
 * A waiting runner held for a submission's claim in the submission's own commit (decision
 * 0063): the store claims for {@link #request()} in the job's insert transaction, and the
 * submission then calls {@link Dispatcher#handOut} with what it claimed, or {@link Dispatcher#release} when the
 * transaction failed. While held, the runner is busy as in a pump: no other pump claims for it.
 */
public final class DispatchReservation {
    private final Waiter waiter;
    private final ClaimRequest request;
    private final Instant now;
    private final Instant acceptUntil;
    /** Runners a warm runner was chosen ahead of (image affinity counts them passed over when it is served). */
    private final List<Long> passedOver;

    DispatchReservation(Waiter waiter, ClaimRequest request, Instant now, Instant acceptUntil, List<Long> passedOver) {
        this.passedOver = List.copyOf(passedOver);
        this.waiter = waiter;
        this.request = request;
        this.now = now;
        this.acceptUntil = acceptUntil;
    }

    Waiter waiter() {
        return waiter;
    }

    List<Long> passedOver() {
        return passedOver;
    }

    public ClaimRequest request() {
        return request;
    }

    /** The claim's time. */
    public Instant now() {
        return now;
    }

    /** The acceptance deadline the claim writes. */
    public Instant acceptUntil() {
        return acceptUntil;
    }
}
