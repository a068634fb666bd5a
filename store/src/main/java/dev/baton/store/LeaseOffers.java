package dev.baton.store;

import dev.baton.protocol.id.LeaseId;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The store's part for transport A (docs/protocol.md, "Transport A"): leases offered on a broker,
 * the outbox they are published from, their binding by the first {@code AckLease} and their
 * expiry. Every method is a compare-and-set in one transaction, so any node may call any of them
 * for any lease: the database decides, never the broker.
 */
public interface LeaseOffers {

    /** What a granted offer is published as: the subject and the {@code LeaseGranted} JSON. */
    record Message(String subject, String payload) {}

    /**
     * Offers up to {@code limit} pending jobs of {@code specIds} that have no live offer, each with a
     * new random lease, writing the offers (the outbox rows, with the message {@code message} builds
     * for the job and its lease) in one transaction whose inserts each find the job still pending.
     * Jobs held back by a retry backoff or a decline back-off, and canary jobs, are not offered.
     * The offers returned are claimed for the caller's pump until {@code publishClaimUntil} (see
     * {@link #claimUnpublished}): it publishes them next, and no other node's pump does meanwhile.
     */
    List<LeaseOffer> grant(
            Set<Long> specIds,
            Instant now,
            Instant acceptUntil,
            Instant publishClaimUntil,
            int limit,
            BiFunction<Job, LeaseId, Message> message);

    /** Offers still waiting in the outbox, oldest first, claimed by a pump or not. */
    List<LeaseOffer> unpublished(int limit);

    /**
     * Claims for this node's pump, until {@code claimUntil}, up to {@code limit} offers waiting in
     * the outbox (oldest first) whose acceptance window is still open and that no other pump holds
     * a live claim on, in one transaction (none when a read finds nothing to claim). Another
     * node's pump skips them until the claim passes or is released, so two nodes do not both
     * publish them; should both publish anyway (a claim that ran out), the broker stores the offer
     * once (the lease is the message id).
     */
    List<LeaseOffer> claimUnpublished(Instant now, Instant claimUntil, int limit);

    /** The broker stored these offers: they leave the outbox, in one transaction. Returns how many left it now. */
    int markPublished(Collection<LeaseId> leases, Instant now);

    /** The broker did not store these offers: any node's pump may claim them again at once. */
    void releaseClaims(Collection<LeaseId> leases);

    Optional<LeaseOffer> find(LeaseId lease);

    /** How an {@code AckLease} ended. */
    enum AckResult {
        /** This acknowledgement bound the lease and claimed the job for the runner. */
        BOUND,
        /** The lease was already bound to this runner (the acknowledgement was resent). */
        ALREADY_BOUND,
        /** Bound to another runner: the first AckLease won. */
        TAKEN,
        /** Not acknowledged within the acceptance window. */
        REVOKED,
        /** Its attempt is over, or its job was taken another way (canceled, claimed over a channel). */
        ENDED,
        /** No such lease. */
        UNKNOWN,
        /** The runner does not serve the job's spec (or is archived or quarantined). */
        NOT_SERVED
    }

    record Ack(AckResult result, Job job) {}

    /**
     * The first {@code AckLease} for an offered lease, within its window: binds it to the runner
     * (alive until {@code expires}) and claims the job for the runner under that very lease (a new
     * attempt), in one transaction.
     */
    Ack ack(LeaseId lease, long runnerId, Instant now, Instant expires, Instant acceptUntil);

    /**
     * Revokes offers whose acceptance window passed and ends offers whose job is no longer pending
     * (canceled, or claimed over a runner channel); returns how many changed.
     */
    int revokeDue(Instant now);

    /** Renews a bound lease of this runner that has not expired; false when it is not (stale). */
    default boolean renew(LeaseId lease, long runnerId, Instant now, Instant expires) {
        return renew(lease, runnerId, now, expires, null);
    }

    /**
     * As {@link #renew(LeaseId, long, Instant, Instant)}, keeping {@code progress} (the JSON of the
     * Heartbeat's progress; null keeps what the last one said) in the same statement: a heartbeat
     * stays one write.
     */
    boolean renew(LeaseId lease, long runnerId, Instant now, Instant expires, String progress);

    /** The progress the runner last reported under {@code lease} while it is bound, as JSON. */
    Optional<String> progress(LeaseId lease);

    /**
     * Keeps the runner's account of the attempt of {@code lease} (the JSON of its artifacts and
     * timings) on the attempt, once: a second call for the same attempt changes nothing.
     */
    void keepReport(LeaseId lease, String report);

    /** The accounts {@link #keepReport} kept for the job's attempts, by attempt number. */
    java.util.Map<Integer, String> reports(long jobId);

    /** A bound lease that expired, and what became of its job (null when the attempt had ended already). */
    record Expired(LeaseOffer offer, Job before, Job after) {}

    /**
     * Expires bound leases past {@code expires} (or just {@code only}, when given and due): the
     * offer ends. A job under it that never started (claimed) goes back to the queue as a new
     * attempt (outcome {@code lost_before_start}), or fails once {@code maxRequeues} is spent. A
     * running job lost its runner, and follows the runner channel's rule (brief §1): it fails with
     * {@code error_code} {@code lease_expired} (outcome {@code lost}), and goes back to the queue
     * only when its retry policy lists {@code runner_lost} and it has attempts left.
     */
    List<Expired> expireDue(Instant now, int maxRequeues, LeaseId only);

    /**
     * The attempt of a bound lease ended (Complete, CancelAck), or its job was found finished: the
     * offer is over, with {@code reason}. A reason starting {@code runner:} (the runner's own final
     * word was applied) also replaces {@code job_finished} on an offer already ended so.
     */
    void end(LeaseId lease, String reason);

    /** The cancel deadline of a job canceled while {@code lease} was its lease, if the runner still owes its CancelAck. */
    Optional<Instant> cancelDeadline(LeaseId lease);
}
