package dev.baton.dispatch.logs;

import dev.baton.dispatch.output.OutputStore;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.store.Job;
import dev.baton.store.Project;
import dev.baton.store.Store;
import dev.baton.store.token.NodeTokens;
import dev.baton.store.token.ReusedNodeTokens;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.BearerToken;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.AfterHttpStart;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.EventStreams;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v0/projects/{project}/jobs/{job}/logs}: a job's log so far as JSON pages, or with
 * {@code ?follow=true} as a Server-Sent Events stream that ends with {@code event: end} when the
 * job ends. While the job runs, entries come from the in-memory tail of the node holding the
 * runner's channel: this node's own, or another node's fetched from it ({@link PeerLogs}); once it
 * ended, the rest of its stored output is added, so the log is whole.
 *
 * <p>It also serves the other nodes: {@code GET /cluster/jobs/{job}/logs?after=&wait=} answers a
 * page of a log this node holds live, in its own numbering, waiting up to {@code wait} for news
 * (a long poll), for a node presenting a {@link NodeTokens} credential for that job.
 *
 * <p>A follower blocks its (virtual) request thread: it waits for new entries, and looks at the
 * job in the store again at least every {@link #RECHECK} (a job can end on paths that do not pass
 * through this node, e.g. on another server node), and writes a comment every {@link #KEEP_ALIVE}
 * so idle proxies and Jetty's idle timeout keep the stream open and a gone client is noticed.
 * A follower with a token finds its caller again at least every {@link #RECHECK} of the clock and
 * ends the stream once the caller may no longer read the project.
 */
public final class LogRoutes implements RouteModule, AfterHttpStart, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogRoutes.class);
    public static final String PATH = "/v0/projects/{project}/jobs/{job}/logs";
    /** Entries in one JSON page or one SSE write burst. */
    public static final int PAGE_ENTRIES = 1_000;
    /** Text in one JSON page (at least one entry is always returned). */
    public static final int PAGE_BYTES = 1 << 20;

    static final Duration RECHECK = Duration.ofSeconds(1);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);
    /** The longest another node may make this one wait for news of a log. */
    static final Duration MAX_PEER_WAIT = Duration.ofSeconds(10);

    private final Store store;
    private final OutputStore outputs;
    private final LiveLogs logs;
    private final Lookups find;
    private final NodeTokens tokens;
    private final PeerLogs peers;
    private final String nodeId;
    private final Clock clock;

    /**
     * @param tokens      the credential between nodes; null on a single node (SQLite), where no
     *                    other node holds a log and none is asked
     */
    public LogRoutes(
            Store store,
            OutputStore outputs,
            LiveLogs logs,
            NodeTokens tokens,
            String nodeId,
            Duration nodeTimeout,
            Clock clock) {
        this.store = store;
        this.outputs = outputs;
        this.logs = logs;
        this.find = new Lookups(store);
        this.tokens = tokens;
        this.peers =
                tokens == null ? null : new PeerLogs(store, new ReusedNodeTokens(tokens), nodeId, nodeTimeout, clock);
        this.nodeId = nodeId;
        this.clock = clock;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get(PATH, this::logs);
        if (tokens != null) config.routes.get(PeerLogs.PATH, this::peerLogs);
        // Followers must not hold up a graceful stop: they end (the client reconnects to the next server).
        config.events.serverStopping(logs::close);
    }

    /** Once this node of a cluster listens, the others learn where to ask it for the logs it holds (a single node has no use for the address). */
    @Override
    public void afterHttpStart(Supplier<String> advertiseUrl) {
        if (tokens == null) return;
        String url = advertiseUrl.get();
        try {
            store.nodes().advertiseNode(nodeId, url);
        } catch (RuntimeException e) {
            // Readers on other nodes then see this node's logs once the jobs ended, as before.
            LOG.warn("cannot advertise this node's address {}: {}", url, e.toString());
        }
    }

    @Override
    public void close() {
        if (peers != null) peers.close();
    }

    /**
     * The same log handler for a caller that authenticates its own way first (the console, signed
     * in with a cookie: EventSource cannot send a bearer token). The /v0 route is guarded by
     * AccessControl, which runs before every /v0 handler.
     */
    public io.javalin.http.Handler unguarded() {
        return this::logs;
    }

    private void logs(Context ctx) throws IOException, InterruptedException {
        Project project = find.project(ctx.pathParam("project"));
        Job job = find.job(project, ctx.pathParam("job"));
        boolean follow = flag("follow", ctx.queryParam("follow"));
        long after = seq("after", ctx.queryParam("after"), 0);
        if (follow && ctx.header("Last-Event-ID") != null)
            after = seq("Last-Event-ID", ctx.header("Last-Event-ID").strip(), after);
        if (follow) follow(ctx, project, job.uuid(), after);
        else {
            Snapshot s = read(project, job.uuid(), after, Duration.ZERO);
            Json.write(ctx, 200, new LogPage(job.uuid(), s.status(), s.entries(), s.next(), s.complete()));
        }
    }

    /**
     * A page of a log: {@code log} is this node's when it served it (a follower waits on it), null
     * when the node holding the log answered (it waited already).
     */
    private record Snapshot(
            String status,
            JobLog log,
            List<LogEntry> entries,
            long next,
            boolean complete,
            String endStatus,
            long version) {
        static Snapshot of(String status, JobLog log, JobLog.Read read) {
            return new Snapshot(
                    status, log, read.entries(), read.next(), read.complete(), read.endStatus(), read.version());
        }
    }

    /**
     * Reads after {@code after}: from the node holding the job's live log when that is another
     * (waiting there up to {@code wait}), else from this node's.
     */
    private Snapshot read(Project project, JobUuid uuid, long after, Duration wait) {
        Job job = store.runs()
                .findJob(uuid)
                .orElseThrow(() -> ApiException.notFound("job_not_found", "no job '" + uuid + "' in this project"));
        // A log another node numbered for this node's readers stays theirs: switching to this
        // node's own (an attempt now runs here) would renumber it under them.
        if (peers != null && (peers.remembers(uuid) || !logs.heldLive(uuid))) {
            Optional<PeerPage> peer = peers.read(job, after, wait);
            if (peer.isPresent()) {
                PeerPage p = peer.get();
                return new Snapshot(p.status(), null, p.entries(), p.next(), p.complete(), p.endStatus(), 0);
            }
        }
        return readHere(project::uuid, job, after);
    }

    /**
     * Reads this node's log after {@code after}, sealing it first when the job has ended and no
     * attempt of it runs here. The stored output (hence the project) is read only for that seal
     * and for text no longer in memory.
     */
    private Snapshot readHere(Supplier<ProjectUuid> project, Job job, long after) {
        JobUuid uuid = job.uuid();
        JobLog log = logs.logFor(uuid);
        if (ended(job.status()) && !log.isSealed() && (!logs.isLive(uuid) || runnerMovedAway(job))) {
            log.seal(
                    job.status().wireName(),
                    job.lease(),
                    outputs.get(project.get(), uuid, job.attempt()).orElse(null),
                    RunnerMessage.Log.MAX_TEXT_BYTES);
        }
        JobLog.Read read = log.read(
                after,
                PAGE_ENTRIES,
                PAGE_BYTES,
                () -> outputs.get(project.get(), uuid, job.attempt()).orElse(null));
        return Snapshot.of(job.status().wireName(), log, read);
    }

    /**
     * The job's attempt is still live here, but its runner's channel is on another node now (it
     * reconnected there and finished): no entry can reach this node any more, and nothing here
     * would end the attempt's live log, so it is sealed for its readers. Asked only of an ended
     * job still live here, which a runner that stays connected leaves at once.
     */
    private boolean runnerMovedAway(Job job) {
        return job.runnerId() != null
                && store.nodes()
                        .runnerNode(job.runnerId())
                        .filter(nodeId::equals)
                        .isEmpty();
    }

    /** Ended for a reader: nothing more will run. A retried job goes back to pending, which is not an end. */
    private static boolean ended(JobStatus status) {
        return !status.inFlight() && status != JobStatus.PENDING;
    }

    private void follow(Context ctx, Project project, JobUuid job, long after)
            throws IOException, InterruptedException {
        OutputStream out = EventStreams.open(ctx);
        out.write(": following job log\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        long position = after;
        long lastWrite = System.nanoTime();
        Supplier<Optional<Principal>> reader = AccessControl.reauthentication(ctx);
        Instant checked = clock.instant();
        try {
            while (!logs.isClosed()) {
                Snapshot s = read(project, job, position, RECHECK);
                // The reader as they are now, at most once per RECHECK of the clock: one who lost the
                // project (removed, token revoked or expired) gets nothing more; a reconnect gets 404.
                if (reader != null && !clock.instant().isBefore(checked.plus(RECHECK))) {
                    checked = clock.instant();
                    if (reader.get()
                            .flatMap(p -> AccessControl.roleOn(p, project))
                            .isEmpty()) return;
                }
                StringBuilder events = new StringBuilder();
                for (LogEntry e : s.entries()) {
                    events.append("id: ")
                            .append(e.seq())
                            .append("\nevent: log\ndata: ")
                            .append(Wire.encode(e))
                            .append("\n\n");
                    position = e.seq();
                }
                if (s.complete()) {
                    events.append("event: end\ndata: ")
                            .append(Wire.encode(Map.of("status", s.endStatus())))
                            .append("\n\n");
                }
                if (!events.isEmpty()) {
                    out.write(events.toString().getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    lastWrite = System.nanoTime();
                }
                if (s.complete()) return;
                if (!s.entries().isEmpty()) continue; // more may be waiting beyond this page
                if (System.nanoTime() - lastWrite > KEEP_ALIVE.toNanos()) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    lastWrite = System.nanoTime();
                }
                if (s.log() != null) s.log().awaitChange(s.version(), RECHECK);
            }
        } catch (IOException e) {
            LOG.debug("log follower of job {} went away: {}", job, e.toString());
        }
    }

    /** {@code GET /cluster/jobs/{job}/logs}: another node's reader asks for a page of a log this node holds live. */
    private void peerLogs(Context ctx) throws InterruptedException {
        JobUuid uuid;
        try {
            uuid = JobUuid.parse(ctx.pathParam("job"));
        } catch (RuntimeException e) {
            throw ApiException.notFound("job_not_found", "no job '" + ctx.pathParam("job") + "'");
        }
        String token = BearerToken.of(ctx.header("Authorization")).orElse("");
        if (!tokens.verify(token, uuid, clock.instant())) {
            throw new ApiException(401, "unauthorized", "a node token for this job is required");
        }
        if (logs.isClosed()) throw new ApiException(503, "shutting_down", "this node is stopping");
        // Only a node that numbers the log itself answers; a log cut from stored output is the same on every node.
        if (!logs.heldLive(uuid))
            throw ApiException.notFound("log_not_held", "this node holds no live log of job '" + uuid + "'");
        Job job = store.runs()
                .findJob(uuid)
                .orElseThrow(() -> ApiException.notFound("job_not_found", "no job '" + uuid + "'"));
        Supplier<ProjectUuid> project = projectOf(job);
        long after = seq("after", ctx.queryParam("after"), 0);
        long waitMillis = Math.min(seq("wait", ctx.queryParam("wait"), 0), MAX_PEER_WAIT.toMillis());
        Snapshot s = readHere(project, job, after);
        if (s.entries().isEmpty() && !s.complete() && waitMillis > 0) {
            s.log().awaitChange(s.version(), Duration.ofMillis(waitMillis));
            // New entries need no second look at the job (the next request has one); nothing new:
            // the attempt may have ended (that wakes the wait too), so the job is read again.
            s = readHere(project, job, after);
            if (s.entries().isEmpty() && !s.complete()) {
                job = store.runs().findJob(uuid).orElse(job);
                s = readHere(project, job, after);
            }
        }
        Json.write(ctx, 200, new PeerPage(s.status(), s.entries(), s.next(), s.complete(), s.endStatus()));
    }

    /** The job's project uuid, read from the store at most once and only when the stored output is needed. */
    private Supplier<ProjectUuid> projectOf(Job job) {
        return new Supplier<>() {
            private ProjectUuid uuid;

            @Override
            public ProjectUuid get() {
                if (uuid == null) {
                    uuid = store.organizations()
                            .projectUuid(job.projectId())
                            .orElseThrow(() -> ApiException.notFound(
                                    "project_not_found", "the project of job '" + job.uuid() + "' is gone"));
                }
                return uuid;
            }
        };
    }

    private static boolean flag(String name, String raw) {
        if (raw == null) return false;
        return switch (raw) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ApiException(400, "invalid_parameter", name + " must be true or false", name);
        };
    }

    private static long seq(String name, String raw, long fallback) {
        if (raw == null) return fallback;
        try {
            long n = Long.parseLong(raw);
            if (n >= 0) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new ApiException(
                400, "invalid_parameter", name + " must be a whole number of at least 0 (a log seq)", name);
    }
}
