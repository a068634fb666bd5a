package dev.baton.store;

import dev.baton.protocol.value.ImageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's part for the claim: pending → claimed, for several waiting runners in one write
 * transaction, and the image the next claim would take.
 */
public interface Claims {
    /**
     * Claims for several waiting runners in <em>one</em> write transaction (issue 13): for each
     * request in order, up to its slots jobs. Each claim atomically takes the best eligible
     * pending job for the request's runner: spec among the runner's specs, not declined by this
     * runner before, ordered priority DESC, created ASC, id ASC (narrowed and ordered by a
     * router's {@link ClaimRequest#filter}), with the tier limits of seed 001 (≥200 unlimited;
     * 100–199 none other in flight for the organization; &lt;100 none other in flight for the
     * source IP). "Declined before" counts only declines of the current round: once every runner
     * of the spec has declined, the job rests for the decline back-off
     * ({@code decline_backoff_until}; runners that never declined may still take it) and then
     * every runner may try again. Sets status claimed, runner, a new lease, attempt+1, claimed and
     * last_heartbeat = now, the acceptance deadline {@code accept_deadline = acceptUntil}, and
     * opens an attempt record. Never hands one job to two callers, on either dialect; each claim
     * sees the ones before it. Returns, per request and in request order, the jobs claimed (each
     * with its own new lease). Once a request finds nothing, later requests with the same spec set
     * are not tried, unless its empty answer was its own: it declined jobs, it is archived or
     * quarantined, or a pending job of the set requires labels.
     */
    List<List<Job>> claimEach(List<ClaimRequest> requests, Instant now, Instant acceptUntil);

    /**
     * The image of the job a claim ({@link #claimEach}) by this runner with {@code filter} would take now, read
     * without claiming (image affinity: the dispatcher asks before letting a warm runner go first).
     * Empty when nothing is claimable or the job has no image. Advice only: a claim right after
     * may take another job if the queue changed meanwhile.
     */
    Optional<ImageDigest> nextImage(long runnerId, Instant now, ClaimFilter filter);
}
