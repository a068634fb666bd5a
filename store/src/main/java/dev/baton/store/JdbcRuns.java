package dev.baton.store;

import static dev.baton.store.ClaimSql.QUEUE_ORDER;
import static dev.baton.store.ClaimSql.TIER_LIMITS;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.StoreContext.notFound;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

/** A run's submission (its report and job) and the reads of jobs, reports and attempts outside the transitions. */
final class JdbcRuns implements Runs {
    /**
     * Jobs in flight on the runners serving {@code :spec}, counted per serving runner (one
     * runner_spec row each) by a correlated count, so that each is a plain probe of
     * index_job_runner_in_flight with or without statistics. Plain index scans mark the entries
     * of dead rows as they pass; the former count (and a join, once statistics exist) ran as
     * bitmap scans over every in-flight entry, which never mark them, and read thousands of dead
     * entries on every submission under churn (ADR 0021).
     */
    static final String IN_FLIGHT_ON_SERVING_RUNNERS =
            "(SELECT COALESCE(SUM((SELECT COUNT(*) FROM job o WHERE o.runner_id = rs.runner_id"
                    + " AND o.status IN (1, 2))), 0) FROM runner_spec rs WHERE rs.spec_id = :spec)";

    /**
     * The specs whose jobs compete with a job of {@code :spec}: its own and every other spec the
     * runners of {@code :spec} serve, one list, so the jobs ahead are counted in one walk of the
     * pending index per spec (an OR of the two made SQLite collect and deduplicate row ids).
     */
    private static final String COMPETING_SPECS = "SELECT :spec AS id UNION SELECT rs2.spec_id FROM runner_spec rs2"
            + " JOIN runner r2 ON r2.id = rs2.runner_id AND r2.archived IS NULL WHERE rs2.runner_id IN (SELECT rs.runner_id FROM runner_spec rs WHERE rs.spec_id = :spec)";

    /** The pending jobs before job {@code :id} in dispatch order, counted one by one. */
    static final String AHEAD =
            "(SELECT COUNT(*) FROM job o WHERE o.status = 0 AND o.spec_id IN (" + COMPETING_SPECS + ")"
                    + " AND (o.priority > :priority OR (o.priority = :priority AND (o.created < :created OR (o.created = :created AND o.id < :id)))))";

    /** The serving runners of {@code :spec} (not archived), and those of them live: not quarantined, heartbeat at or after {@code :fresh}. */
    private static final String SERVING_RUNNERS = "(SELECT COUNT(*) AS serving,"
            + " COALESCE(SUM(CASE WHEN r.quarantined IS NULL AND r.last_heartbeat >= :fresh THEN 1 ELSE 0 END), 0) AS fresh"
            + " FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id WHERE rs.spec_id = :spec AND r.archived IS NULL) sv";

    /** How many runner pools start machines of {@code :spec}: the explanation reads the pools only when some do. */
    private static final String POOLS = "(SELECT COUNT(*) FROM pool p WHERE p.spec_id = :spec)";

    /** Whether job {@code :id} is held back by its tier's concurrency limit (1) or not (0). */
    private static final String TIER_LIMITED =
            "(SELECT COUNT(*) FROM job j WHERE j.id = :id AND NOT " + TIER_LIMITS + ")";

    /** The last {@code limit} finished runs of {@code :spec} that started: how many, and their run times' sum. */
    private static String recentRuns(String limit) {
        return "(SELECT COUNT(*) AS runs, COALESCE(SUM(d.completed - d.started), 0) AS run_micros FROM"
                + " (SELECT started, completed FROM job WHERE spec_id = :spec AND status IN (3, 6) AND started IS NOT NULL"
                + " ORDER BY completed DESC LIMIT " + limit + ") d) rr";
    }

    /**
     * Every count of a pending job's queue status and the recent run times' sum in one statement
     * (one round trip, one snapshot): this read runs on every submission. Jobs compete when a
     * runner of this job's spec could take them. The run times are summed rather than listed: the
     * mean is all the estimate uses. PostgreSQL's form; SQLite's is {@link #PENDING_FACTS_FROM_COUNTS}.
     */
    static final String PENDING_FACTS =
            "SELECT sv.serving, sv.fresh, rr.runs, rr.run_micros, " + AHEAD + " AS ahead, -1 AS behind,"
                    + " " + IN_FLIGHT_ON_SERVING_RUNNERS + " AS in_flight, " + TIER_LIMITED + " AS limited,"
                    + " " + POOLS + " AS pools"
                    + " FROM " + SERVING_RUNNERS + ", " + recentRuns(":n");

    /** How far SQLite walks the jobs behind a job: one further from the end of its queue has its jobs ahead walked instead. */
    static final int BEHIND_WALK = 64;

    /**
     * {@link #hasPendingFor}'s statement for 1 to 8 specs, one text per count with the ids bound,
     * so it is kept prepared: a runner's pump asks it before most claims, and with the ids in the
     * text SQLite compiled it on every call (1.3 % of the server's samples, R = 10).
     */
    private static final String[] HAS_PENDING_KEPT = java.util.stream.IntStream.rangeClosed(1, 8)
            .mapToObj(n -> "SELECT 1 FROM job WHERE status = 0 AND spec_id IN ("
                    + java.util.stream.IntStream.range(0, n)
                            .mapToObj(i -> ":s" + i)
                            .collect(Collectors.joining(", ")) + ") LIMIT 1")
            .toArray(String[]::new);

    /**
     * SQLite's queue facts (decision 0033): {@link #PENDING_FACTS} with the jobs ahead taken from
     * the kept counts. Per competing spec: its pending jobs at {@code :priority} or above from the
     * counts V21's triggers keep, and those at {@code :priority} at or behind job {@code :id} (the
     * job itself included when pending) walked in the pending index up to {@link #BEHIND_WALK} (a
     * per-spec total of that many means "further from the end"). The first sum minus the second is
     * the jobs ahead: a new submission, last in its queue, walks itself instead of every job before it.
     *
     * <p>The limit is {@code :n + 0}, not {@code :n}: SQLite (3.47) reads a LIMIT that is a bare
     * parameter while compiling, and marks the statement to be compiled again whenever that
     * parameter is bound, which is every use. That compile was about three quarters of this
     * statement's time (135 µs a call against 27 µs with the expression, on a bench-like file).
     */
    static final String PENDING_FACTS_FROM_COUNTS =
            "SELECT sv.serving, sv.fresh, rr.runs, rr.run_micros, q.ahead, q.behind,"
                    + " " + IN_FLIGHT_ON_SERVING_RUNNERS + " AS in_flight, " + TIER_LIMITED + " AS limited,"
                    + " " + POOLS + " AS pools"
                    + " FROM " + SERVING_RUNNERS + ", " + recentRuns(":n + 0") + ","
                    + " (SELECT COALESCE(SUM((SELECT COALESCE(SUM(pc.n), 0) FROM pending_count pc WHERE pc.spec_id = cs.id AND pc.priority >= :priority)), 0) AS ahead,"
                    + " COALESCE(SUM((SELECT COUNT(*) FROM (SELECT 1 FROM job o WHERE o.status = 0 AND o.spec_id = cs.id AND o.priority = :priority"
                    + " AND (o.created, o.id) >= (:created, :id) LIMIT " + BEHIND_WALK + "))), 0) AS behind"
                    + " FROM (" + COMPETING_SPECS + ") cs) q";

    /**
     * SQLite: the jobs ahead of job {@code :id} walked, per competing spec, as two ranges of the
     * pending index (higher priority; same priority and earlier), so only jobs ahead are read.
     */
    static final String AHEAD_WALKED =
            "SELECT COALESCE(SUM((SELECT COUNT(*) FROM job o WHERE o.status = 0 AND o.spec_id = cs.id AND o.priority > :priority)"
                    + " + (SELECT COUNT(*) FROM job o WHERE o.status = 0 AND o.spec_id = cs.id AND o.priority = :priority AND (o.created, o.id) < (:created, :id))), 0)"
                    + " AS ahead FROM (" + COMPETING_SPECS + ") cs";

    private final StoreContext context;
    private final SqlDialect dialect;
    private final Statements statements;
    private final JobRows jobRows;
    /** The claim a submission makes in its own commit (decision 0063). */
    private final JdbcClaims claims;
    /** The adapter and results file of reports created lately, by id (result processing; see {@link ReportFormats}). */
    private final ReportFormats reportFormats = new ReportFormats(4096);

    JdbcRuns(StoreContext context, SqlDialect dialect, JdbcClaims claims) {
        this.claims = claims;
        this.context = context;
        this.dialect = dialect;
        this.statements = context.statements;
        this.jobRows = context.jobRows;
    }

    @Override
    public Report createReport(NewReport report, Instant now) {
        return context.write(h -> insertReport(h, report, now));
    }

    @Override
    public CreatedRun createRun(NewReport report, NewJob job, long organizationId, Instant now) {
        requireSubmittable(job);
        CreatedRun created = context.write(h -> insertRun(h, report, job, organizationId, now));
        reportFormats.put(created.report()); // after the commit: result processing needs it once per job
        return created;
    }

    @Override
    public ClaimedRun createRunAndClaim(
            NewReport report, NewJob job, long organizationId, Instant now, ClaimRequest claim, Instant acceptUntil) {
        requireSubmittable(job);
        // The claim claimEach would make for this one request, in the insert's transaction: other
        // transactions first see the job already claimed, or pending when this runner may not take it.
        ClaimedRun run = context.write(h -> {
            CreatedRun created = insertRun(h, report, job, organizationId, now);
            return new ClaimedRun(created.report(), created.job(), claims.claimFor(h, claim, now, acceptUntil));
        });
        reportFormats.put(run.report());
        return run;
    }

    private static void requireSubmittable(NewJob job) {
        Objects.requireNonNull(
                job.sourceIp(), "a job needs its submitter's source IP (the unclaimed tier is limited by it)");
        Objects.requireNonNull(job.config(), "a job needs its config");
    }

    /** The report and its pending job (with labels and submitter), in the caller's write transaction. */
    private CreatedRun insertRun(Handle h, NewReport report, NewJob job, long organizationId, Instant now) {
        RetryPolicy retry = job.retry() == null ? RetryPolicy.NONE : job.retry();
        // One statement for the three existence checks and the job row returned by its INSERT:
        // this body runs on the committer, where every statement is paid by all writers (issue 13).
        var exists = statements
                .on(
                        h,
                        "SELECT (SELECT COUNT(*) FROM organization WHERE id = :org) AS o, (SELECT COUNT(*) FROM spec WHERE id = :spec) AS s,"
                                + " (SELECT COUNT(*) FROM project WHERE id = :project) AS p")
                .bind("org", organizationId)
                .bind("spec", job.specId())
                .bind("project", report.projectId())
                .one(rs -> new long[] {rs.getLong("o"), rs.getLong("s"), rs.getLong("p")});
        if (exists[0] == 0) throw notFound("organization", organizationId);
        if (exists[1] == 0) throw notFound("spec", job.specId());
        if (exists[2] == 0) throw notFound("project", report.projectId());
        Report stored = insertCheckedReport(h, report, now);
        long reportId = stored.id();
        Job inserted = statements
                .on(
                        h,
                        "INSERT INTO job (uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout,"
                                + " priority, status, max_attempts, backoff_seconds, retry_when_runner_lost, retry_on, final_exit_codes, queue_timeout,"
                                + " canary_runner_id, preferred_labels, created, modified)"
                                + " VALUES (:uuid, :report, :project, :org, :ip, :spec, :config, :timeout,"
                                + " :priority, 0, :maxAttempts, :backoff, :retryLost, :retryOn, :finalCodes, :queueTimeout, :canary, :preferred, :now, :now)"
                                + " RETURNING " + Rows.JOB)
                .bind("uuid", UUID.randomUUID().toString())
                .bind("report", reportId)
                .bind("project", report.projectId())
                .bind("org", organizationId)
                .bind("ip", job.sourceIp())
                .bind("spec", job.specId())
                .bind("config", Rows.json(job.config()))
                .bind("timeout", job.timeout())
                .bind("priority", job.priority())
                .bind("maxAttempts", Math.max(1, retry.maxAttempts()))
                .bind("backoff", Math.max(0, retry.backoffSeconds()))
                .bind("retryLost", retry.retryWhenRunnerLost())
                .bind("retryOn", retry.onColumn())
                .bind("finalCodes", retry.finalExitCodesColumn())
                .bind("queueTimeout", job.queueTimeout())
                .bind("canary", job.canaryRunnerId())
                .bind("preferred", job.labels().preferred().size())
                .bind("now", micros(now))
                .one(jobRows);
        long id = inserted.id();
        insertLabels(h, id, 1, job.labels().required());
        insertLabels(h, id, 0, job.labels().preferred());
        if (job.submitter() != null) {
            statements
                    .on(h, "INSERT INTO job_submitter (job_id, user_id, token_id) VALUES (:job, :user, :token)")
                    .bind("job", id)
                    .bind("user", job.submitter().userId())
                    .bind("token", job.submitter().tokenId())
                    .execute();
        }
        return new CreatedRun(stored, inserted);
    }

    private void insertLabels(Handle h, long jobId, int required, Map<String, String> labels) {
        for (var e : labels.entrySet()) {
            statements
                    .on(
                            h,
                            "INSERT INTO job_label (job_id, required, key, value) VALUES (:job, :required, :key, :value)")
                    .bind("job", jobId)
                    .bind("required", required)
                    .bind("key", e.getKey())
                    .bind("value", e.getValue())
                    .execute();
        }
    }

    @Override
    public JobLabels jobLabels(long jobId) {
        return context.readPlain(c -> {
            Map<String, String> required = new java.util.TreeMap<>();
            Map<String, String> preferred = new java.util.TreeMap<>();
            statements
                    .on(c, "SELECT required, key, value FROM job_label WHERE job_id = :job")
                    .bind("job", jobId)
                    .list(rs -> (rs.getInt("required") == 1 ? required : preferred)
                            .put(rs.getString("key"), rs.getString("value")));
            return new JobLabels(required, preferred);
        });
    }

    @Override
    public Optional<Report> findReport(long id) {
        return context.readPlain(c -> context.byId(c, "report", Rows.REPORT, id, Rows::report));
    }

    @Override
    public Optional<Report> findReport(ReportUuid uuid) {
        return context.readPlain(c -> statements
                .on(c, "SELECT " + Rows.REPORT + " FROM report WHERE uuid = :uuid")
                .bind("uuid", uuid.toString())
                .findOne(Rows::report));
    }

    @Override
    public Optional<ReportFormat> reportFormat(long id) {
        ReportFormat known = reportFormats.get(id);
        if (known != null) return Optional.of(known);
        Optional<Report> report = findReport(id);
        report.ifPresent(reportFormats::put);
        return report.map(ReportFormat::of);
    }

    @Override
    public Optional<Job> findJob(JobUuid uuid) {
        return context.readPlain(c -> context.job(c, uuid));
    }

    @Override
    public Optional<Job> findJob(long id) {
        return context.read(h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE id = :id")
                .bind("id", id)
                .map(jobRows.mapper)
                .findOne());
    }

    @Override
    public Optional<Job> findJobOfReport(long reportId) {
        return context.read(
                h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE report_id = :report ORDER BY id LIMIT 1")
                        .bind("report", reportId)
                        .map(jobRows.mapper)
                        .findOne());
    }

    @Override
    public List<Job> listJobs(long projectId, JobFilter filter) {
        StringBuilder sql = new StringBuilder("SELECT " + Rows.JOB + " FROM job WHERE project_id = :project");
        if (filter.status() != null) sql.append(" AND status = :status");
        if (filter.specId() != null) sql.append(" AND spec_id = :spec");
        if (filter.runnerId() != null) sql.append(" AND runner_id = :runner");
        sql.append(" ORDER BY created DESC, id DESC LIMIT :limit OFFSET :offset");
        return context.read(h -> {
            Query q = h.createQuery(sql.toString())
                    .bind("project", projectId)
                    .bind("limit", Math.max(0, filter.limit()))
                    .bind("offset", Math.max(0, filter.offset()));
            if (filter.status() != null) q.bind("status", filter.status().code());
            if (filter.specId() != null) q.bind("spec", filter.specId());
            if (filter.runnerId() != null) q.bind("runner", filter.runnerId());
            return q.map(jobRows.mapper).list();
        });
    }

    @Override
    public Optional<Attempt> findAttempt(long jobId, int number) {
        return context.read(h -> h.createQuery(
                        "SELECT " + Rows.ATTEMPT + " FROM job_attempt WHERE job_id = :job AND number = :number")
                .bind("job", jobId)
                .bind("number", number)
                .map(Rows.ATTEMPT_MAPPER)
                .findOne());
    }

    @Override
    public List<Attempt> attempts(long jobId) {
        return context.read(
                h -> h.createQuery("SELECT " + Rows.ATTEMPT + " FROM job_attempt WHERE job_id = :job ORDER BY number")
                        .bind("job", jobId)
                        .map(Rows.ATTEMPT_MAPPER)
                        .list());
    }

    @Override
    public Map<Integer, AttemptEnd> attemptEnds(long jobId) {
        Map<Integer, AttemptEnd> ends = new TreeMap<>();
        context.read(h -> statements
                .on(
                        h,
                        "SELECT number, end_reason, exit_code, retry_decision FROM job_attempt"
                                + " WHERE job_id = :job AND end_reason IS NOT NULL")
                .bind("job", jobId)
                .list(rs -> {
                    String decision = rs.getString("retry_decision");
                    int exit = rs.getInt("exit_code");
                    Integer exitCode = rs.wasNull() ? null : exit;
                    boolean retried = FailedAttempts.RETRIED.equals(decision);
                    return ends.put(
                            rs.getInt("number"),
                            new AttemptEnd(
                                    FailureKind.parse(rs.getString("end_reason")),
                                    exitCode,
                                    retried,
                                    retried ? null : NotRetried.parse(decision)));
                }));
        return ends;
    }

    @Override
    public Optional<RetryPolicy> retryPolicy(long jobId) {
        return context.read(h -> statements
                                .on(h, "SELECT COUNT(*) AS n FROM job WHERE id = :id")
                                .bind("id", jobId)
                                .one(rs -> rs.getLong("n"))
                        == 0
                ? Optional.empty()
                : Optional.of(new FailedAttempts(statements, jobRows).policy(h, jobId)));
    }

    @Override
    public Optional<byte[]> attemptOutput(JobUuid job, int attempt) {
        return context.read(h -> h.createQuery("SELECT a.output FROM job_attempt a JOIN job j ON j.id = a.job_id"
                        + " WHERE j.uuid = :uuid AND a.number = :number AND a.output IS NOT NULL")
                .bind("uuid", job.toString())
                .bind("number", attempt)
                .mapTo(byte[].class)
                .findOne());
    }

    @Override
    public boolean recordFingerprint(JobUuid job, LeaseId lease, String fingerprint) {
        Objects.requireNonNull(lease, "lease");
        return context.write(h -> statements
                        .on(
                                h,
                                "UPDATE job_attempt SET fingerprint = :fingerprint"
                                        + " WHERE lease = :lease AND job_id = (SELECT id FROM job WHERE uuid = :uuid)")
                        .bind("fingerprint", fingerprint)
                        .bind("lease", lease.value())
                        .bind("uuid", job.toString())
                        .execute()
                > 0);
    }

    @Override
    public List<Job> pendingJobsWithQueueTimeout() {
        return context.read(h -> h.createQuery(
                        "SELECT " + Rows.JOB + " FROM job WHERE status = 0 AND queue_timeout IS NOT NULL ORDER BY id")
                .map(jobRows.mapper)
                .list());
    }

    @Override
    public List<Job> pendingJobs() {
        return context.read(
                h -> h.createQuery("SELECT " + Rows.JOB + " FROM job WHERE status = 0" + QUEUE_ORDER.replace("j.", ""))
                        .map(jobRows.mapper)
                        .list());
    }

    @Override
    public PendingFacts pendingFacts(Job job, int recentRuns, Instant freshSince) {
        // Runners at or after this heartbeat time (and not quarantined) are only counted; with no
        // time, none is (Long.MAX_VALUE: every serving runner is listed). The cutoff is rounded up
        // to the stored microsecond, so "at or after" means what Instant.isBefore means.
        long fresh = freshSince == null ? Long.MAX_VALUE : ceilMicros(freshSince);
        return context.readPlain(h -> {
            long[] counts = statements
                    .on(h, dialect.keepsPendingCounts() ? PENDING_FACTS_FROM_COUNTS : PENDING_FACTS)
                    .bind("spec", job.specId())
                    .bind("priority", job.priority())
                    .bind("created", micros(job.created()))
                    .bind("id", job.id())
                    .bind("fresh", fresh)
                    .bind("n", recentRuns)
                    .one(rs -> new long[] {
                        rs.getLong("serving"),
                        rs.getLong("fresh"),
                        rs.getLong("runs"),
                        rs.getLong("run_micros"),
                        rs.getLong("ahead"),
                        rs.getLong("in_flight"),
                        rs.getLong("limited"),
                        rs.getLong("behind"),
                        rs.getLong("pools")
                    });
            long behind = counts[7];
            if (behind >= BEHIND_WALK) {
                // Far from the end of its queue: the jobs ahead are walked (a later snapshot, like the list below).
                counts[4] = statements
                        .on(h, AHEAD_WALKED)
                        .bind("spec", job.specId())
                        .bind("priority", job.priority())
                        .bind("created", micros(job.created()))
                        .bind("id", job.id())
                        .one(rs -> rs.getLong("ahead"));
            } else if (behind >= 0) {
                counts[4] -= behind;
            }
            // The rest of the serving runners, by row, only when there are any: quarantined ones,
            // and ones whose heartbeat is older (they may still hold a channel to this node). A
            // runner that changed between the two statements may be counted in neither or both:
            // the answer is a snapshot for a person to read, and was never one transaction.
            List<ServingRunner> listed = counts[0] == counts[1]
                    ? List.of()
                    : statements
                            .on(
                                    h,
                                    "SELECT r.id, r.slug, r.quarantined, r.last_heartbeat FROM runner r JOIN runner_spec rs ON rs.runner_id = r.id"
                                            + " WHERE rs.spec_id = :spec AND r.archived IS NULL"
                                            + " AND (r.quarantined IS NOT NULL OR r.last_heartbeat IS NULL OR r.last_heartbeat < :fresh) ORDER BY r.created, r.id")
                            .bind("spec", job.specId())
                            .bind("fresh", fresh)
                            .list(rs -> new ServingRunner(
                                    rs.getLong("id"),
                                    new Slug(rs.getString("slug")),
                                    Rows.instant(rs, "quarantined") != null,
                                    Rows.instant(rs, "last_heartbeat")));
            return new PendingFacts(
                    listed,
                    (int) counts[1],
                    (int) counts[4],
                    (int) counts[5],
                    counts[6] > 0,
                    (int) counts[2],
                    counts[3],
                    counts[8] > 0);
        });
    }

    /** Microseconds since the epoch, rounded up: a stored time {@code t} is {@code >=} the result exactly when it is not before {@code instant}. */
    private static long ceilMicros(Instant instant) {
        long micros = Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1000);
        return instant.getNano() % 1000 == 0 ? micros : micros + 1;
    }

    @Override
    public boolean hasPendingFor(Collection<Long> specIds) {
        if (specIds.isEmpty()) return false;
        if (specIds.size() > HAS_PENDING_KEPT.length) {
            String ids = specIds.stream().map(String::valueOf).collect(Collectors.joining(", "));
            return context.readPlain(c -> statements
                    .once(c, "SELECT 1 FROM job WHERE status = 0 AND spec_id IN (" + ids + ") LIMIT 1")
                    .exists());
        }
        return context.readPlain(c -> {
            Sql q = statements.on(c, HAS_PENDING_KEPT[specIds.size() - 1]);
            int i = 0;
            for (long id : specIds) q.bind("s" + i++, id);
            return q.exists();
        });
    }

    private Report insertReport(Handle h, NewReport report, Instant now) {
        if (!statements
                .on(h, "SELECT 1 FROM project WHERE id = :id")
                .bind("id", report.projectId())
                .exists()) {
            throw notFound("project", report.projectId());
        }
        return insertCheckedReport(h, report, now);
    }

    /** The report row, its project already known to exist in this transaction. */
    private Report insertCheckedReport(Handle h, NewReport report, Instant now) {
        Instant start = report.startTime() != null ? report.startTime() : now;
        Instant end = report.endTime() != null ? report.endTime() : now;
        return statements
                .on(
                        h,
                        "INSERT INTO report (uuid, project_id, branch, testbed, adapter, results_file, start_time, end_time, results,"
                                + " created, modified)"
                                + " VALUES (:uuid, :project, :branch, :testbed, :adapter, :resultsFile, :start, :end, :results, :now, :now) RETURNING "
                                + Rows.REPORT)
                .bind("uuid", UUID.randomUUID().toString())
                .bind("project", report.projectId())
                .bind("branch", report.branch())
                .bind("testbed", report.testbed())
                .bind("adapter", report.adapter())
                .bind("resultsFile", report.resultsFile())
                .bind("start", micros(start))
                .bind("end", micros(end))
                .bind("results", report.results())
                .bind("now", micros(now))
                .one(Rows::report);
    }
}
