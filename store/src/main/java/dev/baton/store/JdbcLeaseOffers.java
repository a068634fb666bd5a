package dev.baton.store;

import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.model.CapabilityLabels;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;

/**
 * {@link LeaseOffers} in SQL both dialects accept, on the store's transactions ({@link StoreContext});
 * an offer accepted binds its job through the claim's own update ({@link JdbcClaims#applyClaim}).
 */
final class JdbcLeaseOffers implements LeaseOffers {
    private static final String COLUMNS =
            "lease, job_uuid, job_id, subject, payload, state, created, accept_deadline, published, runner_id, expires, end_reason";
    private final StoreContext context;
    private final SqlDialect dialect;
    private final JdbcClaims claims;

    JdbcLeaseOffers(StoreContext context, SqlDialect dialect, JdbcClaims claims) {
        this.context = context;
        this.dialect = dialect;
        this.claims = claims;
    }

    private static LeaseOffer offer(ResultSet rs) throws SQLException {
        long runner = rs.getLong("runner_id");
        Long runnerId = rs.wasNull() ? null : runner;
        return new LeaseOffer(
                new LeaseId(rs.getString("lease")),
                dev.baton.protocol.id.JobUuid.parse(rs.getString("job_uuid")),
                rs.getLong("job_id"),
                rs.getString("subject"),
                rs.getString("payload"),
                LeaseOffer.State.of(rs.getInt("state")),
                Rows.instant(rs, "created"),
                Rows.instant(rs, "accept_deadline"),
                Rows.instant(rs, "published"),
                runnerId,
                Rows.instant(rs, "expires"),
                rs.getString("end_reason"));
    }

    @Override
    public List<LeaseOffer> grant(
            Set<Long> specIds,
            Instant now,
            Instant acceptUntil,
            Instant publishClaimUntil,
            int limit,
            BiFunction<Job, LeaseId, Message> message) {
        if (specIds.isEmpty()) return List.of();
        String ids = specIds.stream().map(String::valueOf).collect(Collectors.joining(", "));
        List<Job> candidates = context.read(h -> context.statements
                .once(
                        h,
                        "SELECT " + Rows.JOB + " FROM job j WHERE j.status = 0 AND j.spec_id IN (" + ids + ")"
                                + " AND (j.not_before IS NULL OR j.not_before <= :now)"
                                + " AND (j.decline_backoff_until IS NULL OR j.decline_backoff_until <= :now) AND j.canary_runner_id IS NULL"
                                // A job reserved for a single-job channel runner (issue 43) waits for it.
                                + " AND j.bound_runner_id IS NULL"
                                + " AND NOT EXISTS (SELECT 1 FROM lease_offer o WHERE o.job_id = j.id AND o.state IN (0, 1))"
                                // A queue's runner says nothing of its labels or its machine: a job that requires
                                // labels, or a spec that requires a clean fingerprint, waits for a channel runner
                                // that shows them rather than running on a machine nobody checked. Not the
                                // baseline image's capability label: a queue's runner checks that itself and
                                // declines (image_refused) when it cannot (decision 0076).
                                + " AND NOT EXISTS (SELECT 1 FROM job_label jl WHERE jl.job_id = j.id AND jl.required = 1"
                                + " AND jl.key <> '" + CapabilityLabels.BASELINE_IMAGE + "')"
                                + " AND NOT EXISTS (SELECT 1 FROM spec s WHERE s.id = j.spec_id AND s.require_clean_fingerprint)"
                                + " ORDER BY j.priority DESC, j.created, j.id LIMIT :limit")
                .bind("now", micros(now))
                .bind("limit", limit)
                .list(context.jobRows));
        if (candidates.isEmpty()) return List.of();
        List<LeaseId> leases = new ArrayList<>(candidates.size());
        List<Message> messages = new ArrayList<>(candidates.size());
        for (Job job : candidates) {
            LeaseId lease = LeaseId.random();
            leases.add(lease);
            messages.add(message.apply(job, lease));
        }
        return context.write(h -> {
            List<LeaseOffer> granted = new ArrayList<>();
            for (int i = 0; i < candidates.size(); i++) {
                Message m = messages.get(i);
                // The job's own state decides, in the offer's transaction: still pending, no live offer
                // (the unique index on live offers keeps two nodes from offering one job twice).
                context.statements
                        .on(
                                h,
                                "INSERT INTO lease_offer (lease, job_uuid, job_id, subject, payload, state, created, accept_deadline, publish_claim)"
                                        + " SELECT :lease, j.uuid, j.id, :subject, :payload, 0, :now, :until, :claim FROM job j WHERE j.id = :job AND j.status = 0"
                                        + " ON CONFLICT DO NOTHING RETURNING " + COLUMNS)
                        .bind("lease", leases.get(i).value())
                        .bind("subject", m.subject())
                        .bind("payload", m.payload())
                        .bind("now", micros(now))
                        .bind("until", micros(acceptUntil))
                        .bind("claim", micros(publishClaimUntil))
                        .bind("job", candidates.get(i).id())
                        .findOne(JdbcLeaseOffers::offer)
                        .ifPresent(granted::add);
            }
            return granted;
        });
    }

    @Override
    public List<LeaseOffer> unpublished(int limit) {
        return context.read(h -> context.statements
                .on(
                        h,
                        "SELECT " + COLUMNS
                                + " FROM lease_offer WHERE published IS NULL AND state = 0 ORDER BY created LIMIT :limit")
                .bind("limit", limit)
                .list(JdbcLeaseOffers::offer));
    }

    @Override
    public List<LeaseOffer> claimUnpublished(Instant now, Instant claimUntil, int limit) {
        // Usually there is nothing to claim (the pump publishes what it granted itself): a read
        // finds that out without taking the write path.
        boolean any = context.read(h -> context.statements
                .on(
                        h,
                        "SELECT 1 FROM lease_offer WHERE published IS NULL AND state = 0 AND accept_deadline > :now"
                                + " AND (publish_claim IS NULL OR publish_claim <= :now) LIMIT 1")
                .bind("now", micros(now))
                .exists());
        if (!any) return List.of();
        List<LeaseOffer> claimed = context.write(h -> context.statements
                .on(
                        h,
                        "UPDATE lease_offer SET publish_claim = :until WHERE lease IN ("
                                + "SELECT lease FROM lease_offer WHERE published IS NULL AND state = 0 AND accept_deadline > :now"
                                + " AND (publish_claim IS NULL OR publish_claim <= :now) ORDER BY created LIMIT :limit"
                                + dialect.sweepLock()
                                + ") RETURNING " + COLUMNS)
                .bind("until", micros(claimUntil))
                .bind("now", micros(now))
                .bind("limit", limit)
                .list(JdbcLeaseOffers::offer));
        // RETURNING keeps no order; the outbox is published oldest first.
        return claimed.stream()
                .sorted(Comparator.comparing(LeaseOffer::created)
                        .thenComparing(o -> o.lease().value()))
                .toList();
    }

    @Override
    public int markPublished(Collection<LeaseId> leases, Instant now) {
        if (leases.isEmpty()) return 0;
        return context.write(h -> leaseList(
                        context.statements.once(
                                h,
                                "UPDATE lease_offer SET published = :now, publish_claim = NULL"
                                        + " WHERE published IS NULL AND lease IN (" + leaseParameters(leases.size())
                                        + ")"),
                        leases)
                .bind("now", micros(now))
                .execute());
    }

    @Override
    public void releaseClaims(Collection<LeaseId> leases) {
        if (leases.isEmpty()) return;
        context.write(h -> leaseList(
                        context.statements.once(
                                h,
                                "UPDATE lease_offer SET publish_claim = NULL"
                                        + " WHERE published IS NULL AND lease IN (" + leaseParameters(leases.size())
                                        + ")"),
                        leases)
                .execute());
    }

    /** {@code :lease0, :lease1, …}: one parameter per lease of an IN list. */
    private static String leaseParameters(int n) {
        return java.util.stream.IntStream.range(0, n)
                .mapToObj(i -> ":lease" + i)
                .collect(Collectors.joining(", "));
    }

    private static Sql leaseList(Sql sql, Collection<LeaseId> leases) {
        int i = 0;
        for (LeaseId lease : leases) sql.bind("lease" + i++, lease.value());
        return sql;
    }

    @Override
    public Optional<LeaseOffer> find(LeaseId lease) {
        return context.read(h -> find(h, lease));
    }

    private Optional<LeaseOffer> find(Handle h, LeaseId lease) {
        return context.statements
                .on(h, "SELECT " + COLUMNS + " FROM lease_offer WHERE lease = :lease")
                .bind("lease", lease.value())
                .findOne(JdbcLeaseOffers::offer);
    }

    @Override
    public Ack ack(LeaseId lease, long runnerId, Instant now, Instant expires, Instant acceptUntil) {
        return context.write(h -> {
            Optional<LeaseOffer> found = find(h, lease);
            if (found.isEmpty()) return new Ack(AckResult.UNKNOWN, null);
            LeaseOffer o = found.get();
            Job job = context.statements
                    .on(h, "SELECT " + Rows.JOB + " FROM job WHERE id = :id")
                    .bind("id", o.jobId())
                    .one(context.jobRows);
            switch (o.state()) {
                case BOUND -> {
                    return new Ack(
                            o.runnerId() != null && o.runnerId() == runnerId
                                    ? AckResult.ALREADY_BOUND
                                    : AckResult.TAKEN,
                            job);
                }
                case REVOKED -> {
                    return new Ack(AckResult.REVOKED, job);
                }
                case ENDED -> {
                    return new Ack(
                            o.runnerId() != null && o.runnerId() != runnerId ? AckResult.TAKEN : AckResult.ENDED, job);
                }
                case OFFERED -> {}
            }
            if (!o.acceptDeadline().isAfter(now)) return new Ack(AckResult.REVOKED, job);
            boolean serves = context.statements
                    .on(
                            h,
                            "SELECT 1 FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id AND rs.spec_id = :spec"
                                    + " WHERE r.id = :runner AND r.archived IS NULL AND r.quarantined IS NULL")
                    .bind("spec", job.specId())
                    .bind("runner", runnerId)
                    .exists();
            if (!serves) return new Ack(AckResult.NOT_SERVED, job);
            int bound = context.statements
                    .on(
                            h,
                            "UPDATE lease_offer SET state = 1, runner_id = :runner, expires = :expires WHERE lease = :lease AND state = 0")
                    .bind("runner", runnerId)
                    .bind("expires", micros(expires))
                    .bind("lease", lease.value())
                    .execute();
            if (bound == 0) return new Ack(AckResult.TAKEN, job); // another node's AckLease won the row just now
            Optional<Job> claimed =
                    claims.applyClaim(h, o.jobId(), runnerId, lease, now, acceptUntil, ClaimFilter.NONE);
            if (claimed.isEmpty()) {
                // Taken meanwhile over a runner channel, or canceled: this lease never runs.
                context.statements
                        .on(h, "UPDATE lease_offer SET state = 3, end_reason = 'job_not_pending' WHERE lease = :lease")
                        .bind("lease", lease.value())
                        .execute();
                return new Ack(AckResult.ENDED, job);
            }
            return new Ack(AckResult.BOUND, claimed.get());
        });
    }

    @Override
    public int revokeDue(Instant now) {
        return context.write(h -> context.statements
                        .on(
                                h,
                                "UPDATE lease_offer SET state = 2, end_reason = 'acceptance_timeout'"
                                        + " WHERE state = 0 AND accept_deadline <= :now")
                        .bind("now", micros(now))
                        .execute()
                + context.statements
                        .on(
                                h,
                                "UPDATE lease_offer SET state = 3, end_reason = 'job_not_pending' WHERE state = 0"
                                        + " AND EXISTS (SELECT 1 FROM job j WHERE j.id = lease_offer.job_id AND j.status <> 0)")
                        .execute());
    }

    @Override
    public boolean renew(LeaseId lease, long runnerId, Instant now, Instant expires, String progress) {
        return context.write(h -> context.statements
                        .on(
                                h,
                                "UPDATE lease_offer SET expires = :expires, progress = COALESCE(:progress, progress)"
                                        + " WHERE lease = :lease AND state = 1 AND runner_id = :runner AND expires > :now")
                        .bind("expires", micros(expires))
                        .bind("progress", progress)
                        .bind("lease", lease.value())
                        .bind("runner", runnerId)
                        .bind("now", micros(now))
                        .execute()
                > 0);
    }

    @Override
    public Optional<String> progress(LeaseId lease) {
        return context.read(h -> context.statements
                .on(h, "SELECT progress FROM lease_offer WHERE lease = :lease AND state = 1 AND progress IS NOT NULL")
                .bind("lease", lease.value())
                .findOne(rs -> rs.getString(1)));
    }

    @Override
    public void keepReport(LeaseId lease, String report) {
        context.write(h -> context.statements
                .on(h, "UPDATE job_attempt SET lease_report = :report WHERE lease = :lease AND lease_report IS NULL")
                .bind("report", report)
                .bind("lease", lease.value())
                .execute());
    }

    @Override
    public java.util.Map<Integer, String> reports(long jobId) {
        java.util.Map<Integer, String> byNumber = new java.util.TreeMap<>();
        context.read(h -> context.statements
                        .on(
                                h,
                                "SELECT number, lease_report FROM job_attempt WHERE job_id = :job AND lease_report IS NOT NULL")
                        .bind("job", jobId)
                        .list(rs -> java.util.Map.entry(rs.getInt(1), rs.getString(2))))
                .forEach(e -> byNumber.put(e.getKey(), e.getValue()));
        return byNumber;
    }

    @Override
    public List<Expired> expireDue(Instant now, int maxRequeues, LeaseId only) {
        List<LeaseId> due = context.read(h -> context.statements
                .once(
                        h,
                        "SELECT lease FROM lease_offer WHERE state = 1 AND expires <= :now"
                                + (only != null ? " AND lease = '" + only.value() + "'" : "")
                                + " ORDER BY expires LIMIT 100")
                .bind("now", micros(now))
                .list(rs -> new LeaseId(rs.getString(1))));
        List<Expired> expired = new ArrayList<>();
        for (LeaseId lease : due) {
            context.write(h -> expire(h, lease, now, maxRequeues)).ifPresent(expired::add);
        }
        return expired;
    }

    private Optional<Expired> expire(Handle h, LeaseId lease, Instant now, int maxRequeues) {
        Optional<LeaseOffer> ended = context.statements
                .on(
                        h,
                        "UPDATE lease_offer SET state = 3, end_reason = 'lease_expired'"
                                + " WHERE lease = :lease AND state = 1 AND expires <= :now RETURNING " + COLUMNS)
                .bind("lease", lease.value())
                .bind("now", micros(now))
                .findOne(JdbcLeaseOffers::offer);
        if (ended.isEmpty()) return Optional.empty(); // renewed, or expired by another node meanwhile
        LeaseOffer o = ended.get();
        Job before = context.statements
                .on(h, "SELECT " + Rows.JOB + " FROM job WHERE id = :id")
                .bind("id", o.jobId())
                .one(context.jobRows);
        if (!before.holds(lease)) return Optional.of(new Expired(o, before, null));
        Optional<Job> after = switch (before.status()) {
            case CLAIMED -> notStarted(h, o, lease, now, maxRequeues);
            case RUNNING -> runnerLost(h, o, lease, now);
            default -> Optional.empty(); // the attempt had ended already (a final word, a cancel)
        };
        return Optional.of(new Expired(o, before, after.orElse(null)));
    }

    /**
     * The lease expired before its job started (bound, but the attempt never reached running): as
     * on the runner channel, a job that never started goes back to the queue as a new attempt
     * (seed 003's "job returns to queued state"), or fails once {@code maxRequeues} is spent.
     */
    private Optional<Job> notStarted(Handle h, LeaseOffer o, LeaseId lease, Instant now, int maxRequeues) {
        String stillHeld = " WHERE id = :id AND lease = :lease AND status = 1";
        Optional<Job> after = context.statements
                .on(
                        h,
                        "UPDATE job SET status = 0, runner_id = NULL, lease = NULL, claimed = NULL, started = NULL,"
                                + " last_heartbeat = NULL, accept_deadline = NULL, hard_deadline = NULL, lost_deadline = NULL, cancel_deadline = NULL,"
                                + " requeues = requeues + 1, modified = :now" + stillHeld
                                + " AND requeues < :max RETURNING " + Rows.JOB)
                .bind("now", micros(now))
                .bind("id", o.jobId())
                .bind("lease", lease.value())
                .bind("max", maxRequeues)
                .findOne(context.jobRows);
        if (after.isEmpty()) {
            String error = "the lease expired before the job started and the job went back to the queue "
                    + (maxRequeues + 1) + " times; max_requeues is " + maxRequeues;
            after = context.statements
                    .on(
                            h,
                            "UPDATE job SET status = 4, completed = :now, error = :error, error_code = 'lease_expired',"
                                    + " accept_deadline = NULL, hard_deadline = NULL, lost_deadline = NULL, cancel_deadline = NULL, requeues = requeues + 1,"
                                    + " modified = :now" + stillHeld + " AND requeues >= :max RETURNING " + Rows.JOB)
                    .bind("now", micros(now))
                    .bind("error", error)
                    .bind("id", o.jobId())
                    .bind("lease", lease.value())
                    .bind("max", maxRequeues)
                    .findOne(context.jobRows);
        }
        after.ifPresent(j -> closeAttempt(h, o, lease, AttemptOutcome.LOST_BEFORE_START, now));
        return after;
    }

    /**
     * The lease of a running job expired: its runner is lost, and the rule is the runner
     * channel's (brief §1, "a failed benchmark is signal"): the job fails, outcome {@code lost},
     * and goes back to the queue as a new attempt only when its retry policy lists
     * {@code runner_lost} and it has attempts left (after its backoff), decided by
     * {@link FailedAttempts} as for a channel runner lost past the heartbeat timeout.
     */
    private Optional<Job> runnerLost(Handle h, LeaseOffer o, LeaseId lease, Instant now) {
        Optional<Job> failed = context.statements
                .on(
                        h,
                        "UPDATE job SET status = 4, completed = :now, error = :error, error_code = 'lease_expired',"
                                + " accept_deadline = NULL, hard_deadline = NULL, lost_deadline = NULL, cancel_deadline = NULL, modified = :now"
                                + " WHERE id = :id AND lease = :lease AND status = 2 RETURNING " + Rows.JOB)
                .bind("now", micros(now))
                .bind("id", o.jobId())
                .bind("lease", lease.value())
                .bind(
                        "error",
                        "lost contact with the runner: its lease expired without heartbeats after the job started")
                .findOne(context.jobRows);
        if (failed.isEmpty()) return failed;
        closeAttempt(h, o, lease, AttemptOutcome.LOST, now);
        Optional<Job> retried = new FailedAttempts(context.statements, context.jobRows)
                .decide(h, failed.get(), lease, FailureKind.RUNNER_LOST, null, now);
        return retried.isPresent() ? retried : failed;
    }

    private void closeAttempt(Handle h, LeaseOffer o, LeaseId lease, AttemptOutcome outcome, Instant now) {
        context.statements
                .on(
                        h,
                        "UPDATE job_attempt SET ended = :now, outcome = :outcome WHERE job_id = :job AND lease = :lease AND outcome IS NULL")
                .bind("now", micros(now))
                .bind("outcome", outcome.code())
                .bind("job", o.jobId())
                .bind("lease", lease.value())
                .execute();
    }

    @Override
    public void end(LeaseId lease, String reason) {
        // The runner's own final word (end reason runner:…) also replaces a job_finished that a
        // message racing it wrote once the word's transition had committed, so its resends are
        // still answered as the first (the NATS transport's LeaseRoutes).
        context.write(h -> context.statements
                .on(
                        h,
                        "UPDATE lease_offer SET state = 3, end_reason = :reason WHERE lease = :lease"
                                + " AND (state IN (0, 1) OR (state = 3 AND end_reason = 'job_finished' AND :runnerWord))")
                .bind("reason", reason)
                .bind("lease", lease.value())
                .bind("runnerWord", reason.startsWith("runner:"))
                .execute());
    }

    @Override
    public Optional<Instant> cancelDeadline(LeaseId lease) {
        return context.read(h -> context.statements
                .on(
                        h,
                        "SELECT cancel_deadline FROM job WHERE lease = :lease AND status = 5 AND cancel_deadline IS NOT NULL")
                .bind("lease", lease.value())
                .findOne(rs -> Rows.instant(rs, "cancel_deadline")));
    }
}
