package dev.baton.bench;

import dev.baton.store.ClaimFilter;
import dev.baton.store.ClaimRequest;
import dev.baton.store.Job;
import dev.baton.store.Store;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One claim for one runner, as the benchmarks measure it: {@code claimEach} with a single request
 * of one slot. With no spec set named the request's empty answer costs no extra query, so this is
 * the store's single claim (a new lease, accepted within {@link Store#DEFAULT_ACCEPTANCE_TIMEOUT}).
 */
public final class OneClaim {
    private OneClaim() {}

    public static Optional<Job> claim(Store store, long runnerId, Instant now) {
        List<List<Job>> claimed = store.claims()
                .claimEach(
                        List.of(new ClaimRequest(runnerId, 1, Set.of(), ClaimFilter.NONE, false)),
                        now,
                        now.plus(Store.DEFAULT_ACCEPTANCE_TIMEOUT));
        return claimed.getFirst().stream().findFirst();
    }
}
