package dev.baton.bench;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import dev.baton.server.store.Attempt;
import dev.baton.server.store.AttemptOutcome;
import dev.baton.server.store.Job;
import dev.baton.server.store.JobFilter;
import dev.baton.server.store.NewJob;
import dev.baton.server.store.NewReport;
import dev.baton.server.store.Organization;
import dev.baton.server.store.Project;
import dev.baton.server.store.Report;
import dev.baton.server.store.Runner;
import dev.baton.server.store.RunnerFilter;
import dev.baton.server.store.Spec;
import dev.baton.server.store.Store;
import dev.baton.server.store.Transition;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's store, wrapped to count what the benchmark needs without touching server code:
 * write calls (each one a write transaction on both dialects, so "database writes per second" on
 * SQLite, where no server-side counter exists), rows in the batched heartbeat writes, and jobs
 * that reached {@code processed} (the end of the lifecycle, which the server applies on a
 * background thread after acking {@code completed}), and read calls (each one a query or more, a
 * round trip on PostgreSQL) apart from the two lookups the store serves from memory after the
 * first read ({@code projectUuid}, {@code findSpec} by id), which are counted as cached.
 */
final class CountingStore implements Store {
    /** Told about every applied completed → processed transition. */
    interface ProcessedListener {
        void onProcessed();
    }

    /** Not reads: claim transactions, and those that claimed no job, listed with the reads by method (printed per job). */
    static final String CLAIMS = "claimEach (write)";
    static final String EMPTY_CLAIMS = "claimEach (write, empty)";

    private final Store delegate;
    private final LongAdder writes = new LongAdder();
    private final LongAdder heartbeatRows = new LongAdder();
    private final Map<String, LongAdder> writesByMethod = new java.util.concurrent.ConcurrentHashMap<>();
    private final LongAdder reads = new LongAdder();
    private final Map<String, LongAdder> readsByMethod = new java.util.concurrent.ConcurrentHashMap<>();
    private final LongAdder cached = new LongAdder();
    private final ProcessedListener processed;

    CountingStore(Store delegate, ProcessedListener processed) {
        this.delegate = delegate;
        this.processed = processed;
    }

    /** Write calls so far (each is one transaction). */
    long writes() {
        return writes.sum();
    }

    /** Write calls so far per Store method, for saying which writes a phase made. */
    Map<String, Long> writesByMethod() {
        Map<String, Long> m = new java.util.TreeMap<>();
        writesByMethod.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    private void wrote(String method) {
        writes.increment();
        writesByMethod.computeIfAbsent(method, k -> new LongAdder()).increment();
    }

    /** Read calls so far that reach the database (cached lookups not included). */
    long reads() {
        return reads.sum();
    }

    /** Read calls so far per Store method, cached lookups under their own name with " (cached)". */
    Map<String, Long> readsByMethod() {
        Map<String, Long> m = new java.util.TreeMap<>();
        readsByMethod.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /** Lookups the store serves from memory after their first read. */
    long cachedLookups() {
        return cached.sum();
    }

    private void read(String method) {
        reads.increment();
        readsByMethod.computeIfAbsent(method, k -> new LongAdder()).increment();
    }

    private void cached(String method) {
        cached.increment();
        readsByMethod.computeIfAbsent(method + " (cached)", k -> new LongAdder()).increment();
    }

    /** Rows passed to the batched last_heartbeat writes so far. */
    long heartbeatRows() {
        return heartbeatRows.sum();
    }

    @Override
    public Organization createOrganization(String name, Slug slug, PlanTier plan, Instant now) {
        wrote("createOrganization");
        return delegate.createOrganization(name, slug, plan, now);
    }

    @Override
    public Optional<Organization> findOrganization(ResourceId id) {
        read("findOrganization");
        return delegate.findOrganization(id);
    }

    @Override
    public Optional<Organization> findOrganization(long id) {
        read("findOrganization");
        return delegate.findOrganization(id);
    }

    @Override
    public List<Organization> listOrganizations() {
        read("listOrganizations");
        return delegate.listOrganizations();
    }

    @Override
    public Organization setPlan(long organizationId, PlanTier plan, Instant now) {
        wrote("setPlan");
        return delegate.setPlan(organizationId, plan, now);
    }

    @Override
    public Project createProject(long organizationId, String name, Slug slug, Instant now) {
        wrote("createProject");
        return delegate.createProject(organizationId, name, slug, now);
    }

    @Override
    public Optional<Project> findProject(ResourceId id) {
        read("findProject");
        return delegate.findProject(id);
    }

    @Override
    public Optional<Project> findProject(long id) {
        read("findProject");
        return delegate.findProject(id);
    }

    @Override
    public List<Project> listProjects() {
        read("listProjects");
        return delegate.listProjects();
    }

    @Override
    public Runner createRunner(String name, Slug slug, String keyHash, Instant now) {
        wrote("createRunner");
        return delegate.createRunner(name, slug, keyHash, now);
    }

    @Override
    public Optional<Runner> findRunner(ResourceId id) {
        read("findRunner");
        return delegate.findRunner(id);
    }

    @Override
    public Optional<Runner> findRunner(long id) {
        read("findRunner");
        return delegate.findRunner(id);
    }

    @Override
    public List<Runner> listRunners(RunnerFilter filter) {
        read("listRunners");
        return delegate.listRunners(filter);
    }

    @Override
    public Runner updateRunner(long runnerId, String name, Slug slug, Boolean archived, Instant now) {
        wrote("updateRunner");
        return delegate.updateRunner(runnerId, name, slug, archived, now);
    }

    @Override
    public Optional<Runner> quarantineIfFlaky(long runnerId, int threshold, java.time.Duration window, Instant now) {
        wrote("quarantineIfFlaky");
        return delegate.quarantineIfFlaky(runnerId, threshold, window, now);
    }

    @Override
    public Runner releaseRunner(long runnerId, Instant now) {
        wrote("releaseRunner");
        return delegate.releaseRunner(runnerId, now);
    }

    @Override
    public dev.baton.server.store.JobLabels jobLabels(long jobId) {
        read("jobLabels");
        return delegate.jobLabels(jobId);
    }

    @Override
    public dev.baton.server.store.RunnerLabels runnerLabels(long runnerId) {
        read("runnerLabels");
        return delegate.runnerLabels(runnerId);
    }

    @Override
    public void setRunnerLabels(long runnerId, boolean admin, java.util.Map<String, String> labels, Instant now) {
        wrote("setRunnerLabels");
        delegate.setRunnerLabels(runnerId, admin, labels, now);
    }

    @Override
    public Runner rotateRunnerKey(long runnerId, String keyHash, Instant now) {
        wrote("rotateRunnerKey");
        return delegate.rotateRunnerKey(runnerId, keyHash, now);
    }

    @Override
    public Optional<Runner> authenticateRunner(ResourceId id, String keyHash) {
        read("authenticateRunner");
        return delegate.authenticateRunner(id, keyHash);
    }

    @Override
    public void recordRunnerHeartbeats(Map<Long, Instant> lastSeen) {
        wrote("recordRunnerHeartbeats");
        heartbeatRows.add(lastSeen.size());
        delegate.recordRunnerHeartbeats(lastSeen);
    }

    @Override
    public Spec createSpec(String name, Slug slug, Architecture architecture, int cpu, long memory, long disk, boolean network, Instant now) {
        wrote("createSpec");
        return delegate.createSpec(name, slug, architecture, cpu, memory, disk, network, now);
    }

    @Override
    public Optional<Spec> findSpec(ResourceId id) {
        read("findSpec");
        return delegate.findSpec(id);
    }

    @Override
    public Optional<Spec> findSpec(long id) {
        cached("findSpec");
        return delegate.findSpec(id);
    }

    @Override
    public List<Spec> listSpecs(boolean archived) {
        read("listSpecs");
        return delegate.listSpecs(archived);
    }

    @Override
    public Spec updateSpec(long specId, String name, Slug slug, Boolean archived, Instant now) {
        wrote("updateSpec");
        return delegate.updateSpec(specId, name, slug, archived, now);
    }

    @Override
    public void deleteSpec(long specId) {
        wrote("deleteSpec");
        delegate.deleteSpec(specId);
    }

    @Override
    public List<Spec> runnerSpecs(long runnerId) {
        read("runnerSpecs");
        return delegate.runnerSpecs(runnerId);
    }

    @Override
    public void addRunnerSpec(long runnerId, long specId) {
        wrote("addRunnerSpec");
        delegate.addRunnerSpec(runnerId, specId);
    }

    @Override
    public boolean removeRunnerSpec(long runnerId, long specId) {
        wrote("removeRunnerSpec");
        return delegate.removeRunnerSpec(runnerId, specId);
    }

    @Override
    public Runnable onSpecsChange(Runnable listener) {
        return delegate.onSpecsChange(listener);
    }

    @Override
    public void specsChangedElsewhere() {
        delegate.specsChangedElsewhere();
    }

    @Override
    public Report createReport(NewReport report, Instant now) {
        wrote("createReport");
        return delegate.createReport(report, now);
    }

    @Override
    public dev.baton.server.store.CreatedRun createRun(NewReport report, NewJob job, long organizationId, Instant now) {
        wrote("createRun");
        return delegate.createRun(report, job, organizationId, now);
    }

    @Override
    public Optional<Report> findReport(long id) {
        read("findReport");
        return delegate.findReport(id);
    }

    @Override
    public Optional<Report> findReport(ReportUuid uuid) {
        read("findReport");
        return delegate.findReport(uuid);
    }

    @Override
    public Optional<Job> findJob(JobUuid uuid) {
        read("findJob");
        return delegate.findJob(uuid);
    }

    @Override
    public Optional<Job> findJobOfReport(long reportId) {
        read("findJobOfReport");
        return delegate.findJobOfReport(reportId);
    }

    @Override
    public List<Job> listJobs(long projectId, JobFilter filter) {
        read("listJobs");
        return delegate.listJobs(projectId, filter);
    }

    @Override
    public Optional<Attempt> findAttempt(long jobId, int number) {
        read("findAttempt");
        return delegate.findAttempt(jobId, number);
    }

    @Override
    public List<Attempt> attempts(long jobId) {
        read("attempts");
        return delegate.attempts(jobId);
    }

    @Override
    public Optional<Job> claim(long runnerId, LeaseId lease, Instant now, Instant acceptUntil, dev.baton.server.store.ClaimFilter filter) {
        wrote("claim");
        return delegate.claim(runnerId, lease, now, acceptUntil, filter);
    }

    @Override
    public Optional<dev.baton.protocol.id.ProjectUuid> projectUuid(long id) {
        cached("projectUuid");
        return delegate.projectUuid(id);
    }

    @Override
    public Optional<dev.baton.server.store.ReportFormat> reportFormat(long id) {
        cached("reportFormat");
        return delegate.reportFormat(id);
    }

    @Override
    public List<List<Job>> claimEach(List<dev.baton.server.store.ClaimRequest> requests, Instant now, Instant acceptUntil) {
        wrote("claimEach");
        List<List<Job>> claimed = delegate.claimEach(requests, now, acceptUntil);
        // Beside the reads by method but not counted as reads: how many claims (writes) found no job at all.
        readsByMethod.computeIfAbsent(CLAIMS, k -> new LongAdder()).increment();
        if (claimed.stream().allMatch(List::isEmpty)) readsByMethod.computeIfAbsent(EMPTY_CLAIMS, k -> new LongAdder()).increment();
        return claimed;
    }

    @Override
    public Transition start(JobUuid job, LeaseId lease, Instant now, java.time.Duration grace) {
        wrote("start");
        return delegate.start(job, lease, now, grace);
    }

    @Override
    public Transition requeue(JobUuid job, LeaseId lease, AttemptOutcome outcome, dev.baton.server.store.Decline decline, int maxRequeues,
            java.time.Duration declineBackoff, Instant now) {
        wrote("requeue");
        return delegate.requeue(job, lease, outcome, decline, maxRequeues, declineBackoff, now);
    }

    @Override
    public Transition expireQueued(JobUuid job, String error, Instant now) {
        wrote("expireQueued");
        return delegate.expireQueued(job, error, now);
    }

    @Override
    public Spec setSpecRequireCleanFingerprint(long specId, boolean required, Instant now) {
        wrote("setSpecRequireCleanFingerprint");
        return delegate.setSpecRequireCleanFingerprint(specId, required, now);
    }

    @Override
    public boolean recordFingerprint(JobUuid job, LeaseId lease, String fingerprint) {
        wrote("recordFingerprint");
        return delegate.recordFingerprint(job, lease, fingerprint);
    }

    @Override
    public Spec setSpecQueueTimeout(long specId, Integer queueTimeoutSeconds, Instant now) {
        wrote("setSpecQueueTimeout");
        return delegate.setSpecQueueTimeout(specId, queueTimeoutSeconds, now);
    }

    @Override
    public List<Job> pendingJobsWithQueueTimeout() {
        read("pendingJobsWithQueueTimeout");
        return delegate.pendingJobsWithQueueTimeout();
    }

    @Override
    public List<Job> pendingJobs() {
        read("pendingJobs");
        return delegate.pendingJobs();
    }

    @Override
    public dev.baton.server.store.PendingFacts pendingFacts(Job job, int recentRuns, Instant freshSince) {
        read("pendingFacts");
        return delegate.pendingFacts(job, recentRuns, freshSince);
    }

    @Override
    public Transition complete(JobUuid job, LeaseId lease, Instant now) {
        wrote("complete");
        return delegate.complete(job, lease, now);
    }

    @Override
    public Transition fail(JobUuid job, LeaseId lease, String error, AttemptOutcome outcome, Instant now) {
        wrote("fail");
        return delegate.fail(job, lease, error, outcome, now);
    }

    @Override
    public Transition cancel(JobUuid job, LeaseId lease, String reason, Instant now, Instant cancelDeadline) {
        wrote("cancel");
        return delegate.cancel(job, lease, reason, now, cancelDeadline);
    }

    @Override
    public Transition process(JobUuid job, String results, Instant now) {
        wrote("process");
        Transition t = delegate.process(job, results, now);
        if (t.applied()) processed.onProcessed();
        return t;
    }

    @Override
    public Transition recordAdapterError(JobUuid job, String results, String error, Instant now) {
        wrote("recordAdapterError");
        return delegate.recordAdapterError(job, results, error, now);
    }

    @Override
    public void recordJobHeartbeats(Map<JobUuid, Instant> lastSeen) {
        wrote("recordJobHeartbeats");
        heartbeatRows.add(lastSeen.size());
        delegate.recordJobHeartbeats(lastSeen);
    }

    @Override
    public int billMinutes(JobUuid job, int minute, Instant now) {
        wrote("billMinutes");
        return delegate.billMinutes(job, minute, now);
    }

    @Override
    public long billedMinutes(long organizationId) {
        read("billedMinutes");
        return delegate.billedMinutes(organizationId);
    }

    @Override
    public List<Job> inFlightJobs() {
        read("inFlightJobs");
        return delegate.inFlightJobs();
    }

    @Override
    public List<Job> completedUnprocessedJobs() {
        read("completedUnprocessedJobs");
        return delegate.completedUnprocessedJobs();
    }


    @Override
    public boolean hasPendingFor(Collection<Long> specIds) {
        read("hasPendingFor");
        return delegate.hasPendingFor(specIds);
    }

    @Override
    public java.util.Optional<dev.baton.protocol.value.ImageDigest> nextImage(long runnerId, Instant now, dev.baton.server.store.ClaimFilter filter) {
        read("nextImage");
        return delegate.nextImage(runnerId, now, filter);
    }

    // Open Job Spec: not measured by the benchmark, passed through.

    @Override
    public dev.baton.server.store.OjsStore ojs() {
        return delegate.ojs();
    }

    /** Transport A's offers (bench/run leases): passed on uncounted, as ojs() is; the figures compared are the lifecycle's. */
    @Override
    public dev.baton.server.store.LeaseOffers leaseOffers() {
        return delegate.leaseOffers();
    }

    @Override
    public dev.baton.server.store.AlertStore alerts() {
        return delegate.alerts();
    }

    @Override
    public dev.baton.server.store.Schedule createSchedule(dev.baton.server.store.Schedule schedule) {
        wrote("createSchedule");
        return delegate.createSchedule(schedule);
    }

    @Override
    public List<dev.baton.server.store.Schedule> schedules() {
        read("schedules");
        return delegate.schedules();
    }

    @Override
    public Optional<dev.baton.server.store.Schedule> findSchedule(String uuid) {
        read("findSchedule");
        return delegate.findSchedule(uuid);
    }

    @Override
    public List<dev.baton.server.store.Schedule> dueSchedules(Instant now) {
        read("dueSchedules");
        return delegate.dueSchedules(now);
    }

    @Override
    public boolean updateSchedule(dev.baton.server.store.Schedule next) {
        wrote("updateSchedule");
        return delegate.updateSchedule(next);
    }

    @Override
    public boolean deleteSchedule(String uuid) {
        wrote("deleteSchedule");
        return delegate.deleteSchedule(uuid);
    }

    @Override
    public dev.baton.server.store.AccessStore access() {
        return delegate.access();
    }

    @Override
    public void createRegistryUpload(dev.baton.server.store.RegistryUpload upload) {
        delegate.createRegistryUpload(upload);
    }

    @Override
    public Optional<dev.baton.server.store.RegistryUpload> findRegistryUpload(String id) {
        read("findRegistryUpload");
        return delegate.findRegistryUpload(id);
    }

    @Override
    public boolean advanceRegistryUpload(String id, long expectedSize, long size, String chunks, Instant now) {
        return delegate.advanceRegistryUpload(id, expectedSize, size, chunks, now);
    }

    @Override
    public boolean deleteRegistryUpload(String id, long expectedSize) {
        return delegate.deleteRegistryUpload(id, expectedSize);
    }

    @Override
    public List<dev.baton.server.store.RegistryUpload> idleRegistryUploads(Instant cutoff, int limit) {
        read("idleRegistryUploads");
        return delegate.idleRegistryUploads(cutoff, limit);
    }

    @Override
    public long countRegistryUploads() {
        read("countRegistryUploads");
        return delegate.countRegistryUploads();
    }

    @Override
    public void close() {
        delegate.close();
    }

    // ---- cluster (issue 14) --------------------------------------------------------------------

    @Override
    public boolean extendAcceptance(JobUuid job, LeaseId lease, Instant until) {
        wrote("extendAcceptance");
        return delegate.extendAcceptance(job, lease, until);
    }

    @Override
    public void clearCancelDeadline(JobUuid job, LeaseId lease) {
        wrote("clearCancelDeadline");
        delegate.clearCancelDeadline(job, lease);
    }

    @Override
    public <R> List<R> sweepDue(dev.baton.server.store.Deadline deadline, Instant now, int limit, java.util.function.Function<Job, R> act) {
        return delegate.sweepDue(deadline, now, limit, act); // a write only when something is due; counted by its transitions
    }

    @Override
    public Optional<Job> reattach(JobUuid job, LeaseId lease) {
        wrote("reattach");
        return delegate.reattach(job, lease);
    }

    @Override
    public void attachRunner(long runnerId, String node) {
        wrote("attachRunner");
        delegate.attachRunner(runnerId, node);
    }

    @Override
    public void detachRunner(long runnerId, String node, Instant lostAt) {
        wrote("detachRunner");
        delegate.detachRunner(runnerId, node, lostAt);
    }

    @Override
    public void markRunnerLost(long runnerId, Instant at) {
        wrote("markRunnerLost");
        delegate.markRunnerLost(runnerId, at);
    }

    @Override
    public Optional<String> runnerNode(long runnerId) {
        read("runnerNode");
        return delegate.runnerNode(runnerId);
    }

    @Override
    public List<Long> runnersOn(String node) {
        read("runnersOn");
        return delegate.runnersOn(node);
    }

    @Override
    public void registerNode(String node, Instant now, Instant lostAt, Instant aliveSince) {
        wrote("registerNode");
        delegate.registerNode(node, now, lostAt, aliveSince);
    }

    @Override
    public boolean recordLiveness(String node, Instant now, Map<JobUuid, Instant> jobs, Map<Long, Instant> runners) {
        wrote("recordLiveness");
        heartbeatRows.add(jobs.size() + runners.size());
        return delegate.recordLiveness(node, now, jobs, runners);
    }

    @Override
    public void stopNode(String node, Instant now, Instant lostAt) {
        wrote("stopNode");
        delegate.stopNode(node, now, lostAt);
    }

    @Override
    public List<String> expireNodes(String self, Instant staleBefore, Instant now, java.time.Duration heartbeatTimeout) {
        read("expireNodes");
        return delegate.expireNodes(self, staleBefore, now, heartbeatTimeout);
    }

    @Override
    public List<dev.baton.server.store.Node> nodes() {
        read("nodes");
        return delegate.nodes();
    }

    @Override
    public void advertiseNode(String node, String url) {
        delegate.advertiseNode(node, url);
    }

    @Override
    public Optional<String> liveNodeUrl(String node, Instant aliveSince) {
        read("liveNodeUrl");
        return delegate.liveNodeUrl(node, aliveSince);
    }

    @Override
    public dev.baton.server.store.ClusterCounts clusterCounts(String node, Instant aliveSince) {
        read("clusterCounts");
        return delegate.clusterCounts(node, aliveSince);
    }
}
