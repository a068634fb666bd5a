package dev.baton.store;

import static dev.baton.store.ClaimSql.QUEUE_ORDER;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.StoreContext.notFound;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ReportUuid;
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

    private final StoreContext context;
    private final Statements statements;
    private final JobRows jobRows;
    /** The claim a submission makes in its own commit (decision 0063). */
    private final JdbcClaims claims;
    /** The adapter and results file of reports created lately, by id (result processing; see {@link ReportFormats}). */
    private final ReportFormats reportFormats = new ReportFormats(4096);
    /** A pending job's queue status, read on every submission. */
    private final JdbcPendingFacts pendingFacts;

    JdbcRuns(StoreContext context, SqlDialect dialect, JdbcClaims claims) {
        this.claims = claims;
        this.context = context;
        this.statements = context.statements;
        this.jobRows = context.jobRows;
        this.pendingFacts = new JdbcPendingFacts(context, dialect);
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
        return pendingFacts.read(job, recentRuns, freshSince);
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
