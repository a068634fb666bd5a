package dev.baton.server.store;

import com.zaxxer.hikari.HikariDataSource;
import dev.baton.protocol.id.LeaseId;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;

/**
 * The production store on PostgreSQL (READ COMMITTED), safe for several server nodes sharing
 * one database.
 *
 * <p>Claim atomicity has two parts. Exclusivity: the candidate row is locked with
 * {@code FOR UPDATE SKIP LOCKED}, and the update is a compare-and-set on status pending, so two
 * claimers never take one job and never wait on each other's candidates. Tier limits: row locks
 * alone cannot enforce "one in flight per organization / source IP" — two claimers can lock two
 * different pending jobs of one free organization, and each one's NOT EXISTS check misses the
 * other's uncommitted claim. So a limited claim (priority &lt; 200) also takes a transaction-scoped
 * advisory lock keyed by the organization (free) or the source IP (unclaimed), and re-checks the
 * limit in the UPDATE itself: under READ COMMITTED that statement takes a fresh snapshot after the
 * lock is held, and the previous holder released the lock only after its commit became visible,
 * so the re-check sees every earlier claim of that key. Unlimited tiers (≥200) never touch the
 * advisory locks and so never queue behind limited ones.
 *
 * <p>The advisory lock is taken with {@code pg_try_advisory_xact_lock}, never waited for: a claim
 * that already holds one key's lock and waited for another's could deadlock with a claim doing
 * the reverse. A busy key means another claim for that organization or IP is in progress and will
 * almost always make it ineligible anyway; the job is skipped for this claim (never handed out
 * in breach of the limit) and the next candidate is tried. Hash collisions of keys can only cause
 * such a skip, never a breach.
 */
final class PostgresStore extends JdbcStore {
    /** Advisory lock class ids (first int of the two-int key), distinct per limit kind. */
    private static final int ORGANIZATION_LOCK = 0x42540001;
    private static final int SOURCE_IP_LOCK = 0x42540002;
    /** Candidates tried per claim before giving up; only concurrent claims make a candidate fail. */
    private static final int MAX_CANDIDATES = 16;

    PostgresStore(HikariDataSource pool) {
        super(pool);
    }

    @Override
    protected <T> T write(HandleCallback<T, RuntimeException> work) {
        return jdbi.inTransaction(work);
    }

    @Override
    protected boolean isUniqueViolation(SQLException e) {
        return "23505".equals(e.getSQLState());
    }

    @Override
    public Optional<Job> claim(long runnerId, LeaseId lease, Instant now) {
        return write(h -> {
            if (!activeRunner(h, runnerId)) return Optional.empty();
            List<Long> skipped = new ArrayList<>();
            for (int i = 0; i < MAX_CANDIDATES; i++) {
                String exclude = skipped.isEmpty() ? ""
                        : " AND j.id NOT IN (" + skipped.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
                Optional<Candidate> candidate = h.createQuery(CANDIDATES + exclude + CLAIM_ORDER + " LIMIT 1 FOR UPDATE OF j SKIP LOCKED")
                        .bind("runner", runnerId).bind("now", Rows.micros(now))
                        .map((rs, ctx) -> new Candidate(rs.getLong("id"), rs.getInt("priority"), rs.getLong("organization_id"), rs.getString("source_ip")))
                        .findOne();
                if (candidate.isEmpty()) return Optional.empty();
                Candidate c = candidate.get();
                if (c.priority() >= 200) {
                    if (applyClaim(h, c.id(), runnerId, lease, now)) return Optional.of(jobById(h, c.id()));
                } else if (lockLimitKey(h, c) && limitStillHolds(h, c.id())) {
                    if (applyClaim(h, c.id(), runnerId, lease, now)) return Optional.of(jobById(h, c.id()));
                }
                skipped.add(c.id());
            }
            return Optional.empty();
        });
    }

    private record Candidate(long id, int priority, long organizationId, String sourceIp) {}

    private static boolean lockLimitKey(Handle h, Candidate c) {
        boolean perOrganization = c.priority() >= 100;
        return h.createQuery("SELECT pg_try_advisory_xact_lock(:kind, hashtext(:key))")
                .bind("kind", perOrganization ? ORGANIZATION_LOCK : SOURCE_IP_LOCK)
                .bind("key", perOrganization ? Long.toString(c.organizationId()) : c.sourceIp())
                .mapTo(Boolean.class).one();
    }

    /** The tier limit re-read in a new statement, i.e. a new snapshot taken after the advisory lock. */
    private static boolean limitStillHolds(Handle h, long jobId) {
        return h.createQuery("SELECT 1 FROM job j WHERE j.id = :id AND j.status = 0 AND " + TIER_LIMITS)
                .bind("id", jobId).mapTo(Integer.class).findOne().isPresent();
    }
}
