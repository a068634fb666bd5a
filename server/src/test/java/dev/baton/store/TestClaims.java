package dev.baton.store;

import dev.baton.protocol.id.LeaseId;
import dev.baton.server.testing.StoreCalls;
import java.time.Instant;
import java.util.Optional;

/**
 * One claim with a lease the test chose, for tests that go on to use that lease. Production claims
 * through {@link Claims#claimEach} (each job with a new lease); these single claims are what it does
 * per job ({@link JdbcClaims#claim}), in a write transaction of their own.
 */
public final class TestClaims {
    private TestClaims() {}

    /** Claims the best eligible pending job for this runner under {@code lease}, accepted within {@link Store#DEFAULT_ACCEPTANCE_TIMEOUT}. */
    public static Optional<Job> claim(Store store, long runnerId, LeaseId lease, Instant now) {
        return claim(store, runnerId, lease, now, now.plus(Store.DEFAULT_ACCEPTANCE_TIMEOUT), ClaimFilter.NONE);
    }

    /** The claim with its acceptance deadline ({@code accept_deadline}), written in the claim's transaction. */
    public static Optional<Job> claim(Store store, long runnerId, LeaseId lease, Instant now, Instant acceptUntil) {
        return claim(store, runnerId, lease, now, acceptUntil, ClaimFilter.NONE);
    }

    /** {@link #claim(Store, long, LeaseId, Instant)} narrowed and ordered by a router's {@code filter}. */
    public static Optional<Job> claim(Store store, long runnerId, LeaseId lease, Instant now, ClaimFilter filter) {
        return claim(store, runnerId, lease, now, now.plus(Store.DEFAULT_ACCEPTANCE_TIMEOUT), filter);
    }

    /**
     * The claim with its acceptance deadline, narrowed and ordered by a router's {@code filter}
     * ({@link ClaimFilter#NONE}: any job of the runner's specs). The store is a real one or a {@link StoreCalls} proxy of one.
     */
    public static Optional<Job> claim(
            Store store, long runnerId, LeaseId lease, Instant now, Instant acceptUntil, ClaimFilter filter) {
        // A test's proxy of the store (StoreCalls) does not see this claim: no part has it.
        Store target = store instanceof StoreCalls.Wrapped wrapped ? wrapped.real() : store;
        if (!(target.claims() instanceof JdbcClaims claims))
            throw new IllegalArgumentException("not a JDBC store: " + store);
        return claims.claim(runnerId, lease, now, acceptUntil, filter);
    }
}
