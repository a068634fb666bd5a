package dev.baton.store;

import static dev.baton.store.Rows.micros;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Jobs in flight: their heartbeats, billed minutes, durable deadlines and the sweeps that act on them. */
final class JdbcJobLiveness implements JobLiveness {
    private final StoreContext context;
    private final SqlDialect dialect;
    private final JobRows jobRows;

    JdbcJobLiveness(StoreContext context, SqlDialect dialect) {
        this.context = context;
        this.dialect = dialect;
        this.jobRows = context.jobRows;
    }

    @Override
    public void recordJobHeartbeats(Map<JobUuid, Instant> lastSeen) {
        Map<JobUuid, Instant> due = context.skippedHeartbeats.takeWith(lastSeen);
        if (due.isEmpty()) return;
        context.skippedHeartbeats.keep(due, context.write(h -> dialect.jobHeartbeats(context.statements, h, due)));
    }

    @Override
    public int billMinutes(JobUuid job, int minute, Instant now) {
        return context.write(h -> {
            // Compare-and-set on the previous value: a minute is billed once however many
            // heartbeats (or server nodes) report it.
            while (true) {
                Optional<Integer> billed = h.createQuery(
                                "SELECT COALESCE(last_billed_minute, 0) FROM job WHERE uuid = :uuid")
                        .bind("uuid", job.toString())
                        .mapTo(Integer.class)
                        .findOne();
                if (billed.isEmpty() || billed.get() >= minute) return 0;
                int rows = h.createUpdate("UPDATE job SET last_billed_minute = :minute, modified = :now"
                                + " WHERE uuid = :uuid AND COALESCE(last_billed_minute, 0) = :previous")
                        .bind("minute", minute)
                        .bind("now", micros(now))
                        .bind("uuid", job.toString())
                        .bind("previous", billed.get())
                        .execute();
                if (rows == 1) {
                    // The ledger behind usage per period, in the same transaction: billed once, counted once.
                    h.createUpdate(
                                    "INSERT INTO usage_minute (organization_id, project_id, job_id, minutes, billed)"
                                            + " SELECT organization_id, project_id, id, :minutes, :now FROM job WHERE uuid = :uuid")
                            .bind("minutes", minute - billed.get())
                            .bind("now", micros(now))
                            .bind("uuid", job.toString())
                            .execute();
                    return minute - billed.get();
                }
            }
        });
    }

    @Override
    public List<ProjectMinutes> billedMinutes(long organizationId, Instant from, Instant to) {
        return context.read(h -> h.createQuery(
                        "SELECT project_id, SUM(minutes) FROM usage_minute"
                                + " WHERE organization_id = :org AND billed >= :from AND billed < :to GROUP BY project_id ORDER BY project_id")
                .bind("org", organizationId)
                .bind("from", micros(from))
                .bind("to", micros(to))
                .map((rs, ctx) -> new ProjectMinutes(rs.getLong(1), rs.getLong(2)))
                .list());
    }

    @Override
    public long billedMinutes(long organizationId) {
        return context.read(
                h -> h.createQuery("SELECT COALESCE(SUM(last_billed_minute), 0) FROM job WHERE organization_id = :org")
                        .bind("org", organizationId)
                        .mapTo(Long.class)
                        .one());
    }

    @Override
    public List<Job> inFlightJobs() {
        return context.read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE status IN (1, 2) ORDER BY id")
                .map(jobRows.mapper)
                .list());
    }

    @Override
    public List<Job> completedUnprocessedJobs() {
        return context.read(h -> h.createQuery(
                        "SELECT " + Rows.JOB + " FROM job WHERE status = 3"
                                + " AND NOT EXISTS (SELECT 1 FROM report r WHERE r.id = job.report_id AND r.error IS NOT NULL) ORDER BY id")
                .map(jobRows.mapper)
                .list());
    }

    @Override
    public boolean extendAcceptance(JobUuid job, LeaseId lease, Instant until) {
        return context.write(h -> h.createUpdate(
                                        "UPDATE job SET accept_deadline = :until WHERE uuid = :uuid AND lease = :lease AND status = 1"
                                                + " AND (accept_deadline IS NULL OR accept_deadline < :until)")
                                .bind("until", micros(until))
                                .bind("uuid", job.toString())
                                .bind("lease", lease.value())
                                .execute()
                        > 0
                || h.createQuery("SELECT 1 FROM job WHERE uuid = :uuid AND lease = :lease AND status = 1")
                        .bind("uuid", job.toString())
                        .bind("lease", lease.value())
                        .mapTo(Integer.class)
                        .findOne()
                        .isPresent());
    }

    @Override
    public void clearCancelDeadline(JobUuid job, LeaseId lease) {
        context.write(h -> h.createUpdate(
                        "UPDATE job SET cancel_deadline = NULL WHERE uuid = :uuid AND lease = :lease AND cancel_deadline IS NOT NULL")
                .bind("uuid", job.toString())
                .bind("lease", lease.value())
                .execute());
    }

    @Override
    public <R> List<R> sweepDue(Deadline deadline, Instant now, int limit, java.util.function.Function<Job, R> act) {
        // A read first: nothing is due on most sweeps, and a write transaction would hold SQLite's one writer.
        if (context.read(h -> h.createQuery("SELECT 1 FROM job WHERE " + deadline.due + " LIMIT 1")
                        .bind("now", micros(now))
                        .mapTo(Integer.class)
                        .findOne())
                .isEmpty()) {
            return List.of();
        }
        return context.write(h -> {
            List<Job> due = h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE " + deadline.due + " ORDER BY "
                            + deadline.order + ", id LIMIT :limit" + dialect.sweepLock())
                    .bind("now", micros(now))
                    .bind("limit", limit)
                    .map(jobRows.mapper)
                    .list();
            List<R> results = new ArrayList<>(due.size());
            for (Job job : due) {
                // Whatever the act decides, this deadline is spent: it is never swept twice.
                if (deadline == Deadline.CANCEL) {
                    h.createUpdate("UPDATE job SET cancel_deadline = NULL WHERE id = :id")
                            .bind("id", job.id())
                            .execute();
                } else if (deadline == Deadline.LOST) {
                    h.createUpdate("UPDATE job SET lost_deadline = NULL WHERE id = :id")
                            .bind("id", job.id())
                            .execute();
                }
                results.add(act.apply(job));
            }
            return results;
        });
    }

    @Override
    public Optional<Job> reattach(JobUuid job, LeaseId lease) {
        return context.write(h -> {
            h.createUpdate(
                            "UPDATE job SET lost_deadline = NULL WHERE uuid = :uuid AND lease = :lease AND status IN (1, 2)"
                                    + " AND lost_deadline IS NOT NULL")
                    .bind("uuid", job.toString())
                    .bind("lease", lease.value())
                    .execute();
            return context.job(h, job).filter(j -> j.holds(lease) && j.status().inFlight());
        });
    }
}
