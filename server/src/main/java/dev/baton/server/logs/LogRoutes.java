package dev.baton.server.logs;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobOutput;
import dev.baton.server.api.Lookups;
import dev.baton.server.http.ApiException;
import dev.baton.server.http.EventStreams;
import dev.baton.server.http.Json;
import dev.baton.server.http.RouteModule;
import dev.baton.server.output.OutputStore;
import dev.baton.server.store.Job;
import dev.baton.server.store.Project;
import dev.baton.server.store.Store;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v0/projects/{project}/jobs/{job}/logs}: a job's log so far as JSON pages, or with
 * {@code ?follow=true} as a Server-Sent Events stream that ends with {@code event: end} when the
 * job ends. While the job runs, entries come from this node's in-memory tail; once it ended, the
 * rest of its stored output is added, so the log is whole.
 *
 * <p>A follower blocks its (virtual) request thread: it waits for new entries, and looks at the
 * job in the store again at least every {@link #RECHECK} (a job can end on paths that do not pass
 * through this node, e.g. on another server node), and writes a comment every {@link #KEEP_ALIVE}
 * so idle proxies and Jetty's idle timeout keep the stream open and a gone client is noticed.
 */
public final class LogRoutes implements RouteModule {
    private static final Logger LOG = LoggerFactory.getLogger(LogRoutes.class);
    public static final String PATH = "/v0/projects/{project}/jobs/{job}/logs";
    /** Entries in one JSON page or one SSE write burst. */
    public static final int PAGE_ENTRIES = 1_000;
    /** Text in one JSON page (at least one entry is always returned). */
    public static final int PAGE_BYTES = 1 << 20;
    static final Duration RECHECK = Duration.ofSeconds(1);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private final Store store;
    private final OutputStore outputs;
    private final LiveLogs logs;
    private final Lookups find;

    public LogRoutes(Store store, OutputStore outputs, LiveLogs logs) {
        this.store = store;
        this.outputs = outputs;
        this.logs = logs;
        this.find = new Lookups(store);
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get(PATH, this::logs);
        // Followers must not hold up a graceful stop: they end (the client reconnects to the next server).
        config.events.serverStopping(logs::close);
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
        if (follow && ctx.header("Last-Event-ID") != null) after = seq("Last-Event-ID", ctx.header("Last-Event-ID").strip(), after);
        if (follow) follow(ctx, project, job.uuid(), after);
        else {
            Snapshot s = read(project, job.uuid(), after);
            Json.write(ctx, 200, new LogPage(job.uuid(), s.status(), s.read().entries(), s.read().next(), s.read().complete()));
        }
    }

    private record Snapshot(String status, JobLog log, JobLog.Read read) {}

    /** Reads after {@code after}, sealing the log first when the job has ended and no attempt of it runs here. */
    private Snapshot read(Project project, JobUuid uuid, long after) {
        Job job = store.findJob(uuid).orElseThrow(() -> ApiException.notFound("job_not_found", "no job '" + uuid + "' in this project"));
        JobLog log = logs.logFor(uuid);
        if (ended(job.status()) && !logs.isLive(uuid) && !log.isSealed()) {
            log.seal(job.status().wireName(), job.lease(), outputs.get(project.uuid(), uuid).orElse(null), RunnerMessage.Log.MAX_TEXT_BYTES);
        }
        JobLog.Read read = log.read(after, PAGE_ENTRIES, PAGE_BYTES, () -> outputs.get(project.uuid(), uuid).orElse(null));
        return new Snapshot(job.status().wireName(), log, read);
    }

    /** Ended for a reader: nothing more will run. A retried job goes back to pending, which is not an end. */
    private static boolean ended(JobStatus status) {
        return !status.inFlight() && status != JobStatus.PENDING;
    }

    private void follow(Context ctx, Project project, JobUuid job, long after) throws IOException, InterruptedException {
        OutputStream out = EventStreams.open(ctx);
        out.write(": following job log\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
        long position = after;
        long lastWrite = System.nanoTime();
        try {
            while (!logs.isClosed()) {
                Snapshot s = read(project, job, position);
                StringBuilder events = new StringBuilder();
                for (LogEntry e : s.read().entries()) {
                    events.append("id: ").append(e.seq()).append("\nevent: log\ndata: ").append(Wire.encode(e)).append("\n\n");
                    position = e.seq();
                }
                if (s.read().complete()) {
                    events.append("event: end\ndata: ").append(Wire.encode(Map.of("status", s.read().endStatus()))).append("\n\n");
                }
                if (!events.isEmpty()) {
                    out.write(events.toString().getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    lastWrite = System.nanoTime();
                }
                if (s.read().complete()) return;
                if (!s.read().entries().isEmpty()) continue; // more may be waiting beyond this page
                if (System.nanoTime() - lastWrite > KEEP_ALIVE.toNanos()) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    lastWrite = System.nanoTime();
                }
                s.log().awaitChange(s.read().version(), RECHECK);
            }
        } catch (IOException e) {
            LOG.debug("log follower of job {} went away: {}", job, e.toString());
        }
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
        throw new ApiException(400, "invalid_parameter", name + " must be a whole number of at least 0 (a log seq)", name);
    }
}
