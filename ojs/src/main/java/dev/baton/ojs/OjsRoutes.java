package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.store.OjsEvent;
import dev.baton.store.Store;
import dev.baton.web.auth.AuditLog;
import dev.baton.web.auth.Authenticator;
import dev.baton.web.auth.BearerToken;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Open Job Spec HTTP binding (docs/ojs.md): {@code /ojs/v1/...} and {@code GET /ojs/manifest}.
 * Every answer carries {@code OJS-Version}, {@code X-Request-Id} (echoed or made up) and the
 * {@code application/openjobspec+json} content type; a refused request gets the OJS error shape.
 */
public final class OjsRoutes implements RouteModule, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OjsRoutes.class);
    static final String MEDIA_TYPE = "application/openjobspec+json";
    static final String VERSION = "1.0";
    static final String DOCS_URL = "https://openjobspec.org/spec/v1/errors";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_FETCH = 100;

    private final OjsJobs jobs;
    private final String backend;
    /**
     * OJS queues belong to no project, so the binding is server-wide: the admin token only
     * (docs/decisions/0010-access.md). A user's token is known but refused (403).
     */
    private final Authenticator authenticator;
    /** Records the operator's directions to workers (quiet, terminate, resume), as the API records its actions. */
    private final AuditLog audit;

    private static final String PRINCIPAL = "baton.ojs.principal";

    private final ScheduledExecutorService sweeper;
    /** Background sweeps between two prunes of unused unique-key rows (about a minute). */
    private static final int PRUNE_EVERY = 60;
    /**
     * Background sweeps between two looks at the running workflows (about 10 s). A job's end
     * already advances its workflow; this pass only catches a node that stopped in between, and
     * reads up to 50 workflows with their jobs, too much to do every second.
     */
    private static final int ADVANCE_EVERY = 10;
    /** Background sweeps so far (only the sweeper's thread touches it). */
    private long sweeps;

    /**
     * Also starts the sweep (due schedules, waiting jobs whose time came, expired leases) every
     * {@code sweepEvery}; every request sweeps too, so the period only bounds how late a cron
     * job is enqueued while no OJS client is asking.
     */
    public OjsRoutes(
            Store store,
            Clock clock,
            String backend,
            Duration sweepEvery,
            Authenticator authenticator,
            AuditLog audit,
            BatonMetrics metrics) {
        this.authenticator = authenticator;
        this.audit = audit;
        this.jobs = new OjsJobs(store, clock);
        // Counted in the store, so every node reports the same OJS queue (like the cluster gauges).
        metrics.ojsJobs(Arrays.stream(OjsState.values()).map(OjsState::wire).toList(), store.ojs()::counts);
        this.backend = backend;
        this.sweeper = Executors.newSingleThreadScheduledExecutor(
                Thread.ofVirtual().name("ojs-sweep").factory());
        sweeper.scheduleWithFixedDelay(
                this::sweep, sweepEvery.toMillis(), sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The background sweep also brings running workflows up to date (a node that stopped between a job's ack and its workflow's advance). */
    private void sweep() {
        try {
            jobs.sweep();
            sweeps++;
            if (sweeps % ADVANCE_EVERY == 0) jobs.workflows().advanceRunning();
            if (sweeps % PRUNE_EVERY == 0) jobs.pruneUniqueKeys();
        } catch (RuntimeException e) {
            LOG.warn("OJS sweep failed; the next one tries again", e);
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/ojs/manifest", wrap(this::manifest));
        config.routes.get(
                "/ojs/v1/health",
                wrap(ctx -> ok(
                        ctx,
                        200,
                        Map.of(
                                "status",
                                "ok",
                                "version",
                                VERSION,
                                "backend",
                                Map.of("type", backend, "status", "ok")))));
        config.routes.post("/ojs/v1/jobs", guarded(this::push));
        config.routes.post("/ojs/v1/jobs/batch", guarded(this::pushBatch));
        config.routes.get(
                "/ojs/v1/jobs/{id}", guarded(ctx -> ok(ctx, 200, Map.of("job", jobs.info(ctx.pathParam("id"))))));
        config.routes.delete(
                "/ojs/v1/jobs/{id}", guarded(ctx -> ok(ctx, 200, Map.of("job", jobs.cancel(ctx.pathParam("id"))))));
        config.routes.post("/ojs/v1/workers/fetch", guarded(this::fetch));
        config.routes.post("/ojs/v1/workers/ack", guarded(this::ack));
        // Seed 002's paths for the same two operations (issue 47): one handler each, the same answers.
        config.routes.post("/ojs/v1/jobs/fetch", guarded(this::fetch));
        config.routes.post("/ojs/v1/jobs/{id}/ack", guarded(this::ackByPath));
        config.routes.post("/ojs/v1/workers/register", guarded(ctx -> ok(ctx, 200, jobs.register(body(ctx)))));
        config.routes.get("/ojs/v1/workers", guarded(ctx -> ok(ctx, 200, Map.of("workers", jobs.workers()))));
        // The same list in Baton's API (issue 47): access is AccessControl's (RouteTable: admin), errors are /v0's.
        config.routes.get("/v0/ojs/workers", ctx -> ctx.json(Map.of("workers", jobs.workers())));
        config.routes.get(
                "/ojs/v1/workers/{id}",
                guarded(ctx -> ok(ctx, 200, Map.of("worker", jobs.workerView(ctx.pathParam("id"))))));
        for (String state : List.of("quiet", "terminate", "resume")) {
            String directed = state.equals("resume") ? "running" : state;
            config.routes.post("/ojs/v1/workers/{id}/" + state, guarded(ctx -> {
                ObjectNode worker = jobs.direct(ctx.pathParam("id"), directed);
                audited(
                        ctx,
                        "ojs.worker." + state,
                        Map.of("worker_id", worker.path("worker_id").asText()));
                ok(ctx, 200, Map.of("worker", worker));
            }));
            config.routes.post("/ojs/v1/queues/{name}/workers/" + state, guarded(ctx -> {
                List<String> ids = jobs.directQueue(ctx.pathParam("name"), directed);
                audited(ctx, "ojs.queue_workers." + state, Map.of("queue", ctx.pathParam("name"), "workers", ids));
                ok(ctx, 200, Map.of("queue", ctx.pathParam("name"), "state", directed, "workers", ids));
            }));
        }
        config.routes.post("/ojs/v1/workers/nack", guarded(this::nack));
        config.routes.post("/ojs/v1/workers/heartbeat", guarded(this::heartbeat));
        config.routes.get("/ojs/v1/queues", guarded(this::queues));
        config.routes.get("/ojs/v1/queues/{name}/stats", guarded(this::stats));
        config.routes.post("/ojs/v1/queues/{name}/pause", guarded(ctx -> pause(ctx, true)));
        config.routes.post("/ojs/v1/queues/{name}/resume", guarded(ctx -> pause(ctx, false)));
        config.routes.get("/ojs/v1/dead-letter", guarded(this::deadLetter));
        config.routes.post(
                "/ojs/v1/dead-letter/{id}/retry",
                guarded(ctx -> ok(ctx, 200, Map.of("job", jobs.retryDeadLetter(ctx.pathParam("id"))))));
        config.routes.delete("/ojs/v1/dead-letter/{id}", guarded(ctx -> {
            jobs.discardDeadLetter(ctx.pathParam("id"));
            ok(ctx, 200, Map.of("deleted", true, "job_id", ctx.pathParam("id")));
        }));
        config.routes.get("/ojs/v1/events", guarded(this::events));
        config.routes.post(
                "/ojs/v1/workflows",
                guarded(ctx -> ok(ctx, 201, Map.of("workflow", jobs.workflows().create(body(ctx))))));
        config.routes.get(
                "/ojs/v1/workflows/{id}",
                guarded(ctx -> ok(ctx, 200, Map.of("workflow", jobs.workflows().get(ctx.pathParam("id"))))));
        config.routes.delete(
                "/ojs/v1/workflows/{id}",
                guarded(ctx -> ok(ctx, 200, Map.of("workflow", jobs.workflows().cancel(ctx.pathParam("id"))))));
        config.routes.post("/ojs/v1/workers/beat", guarded(ctx -> ok(ctx, 200, jobs.beat(body(ctx)))));
        config.routes.get("/ojs/v1/workers/{id}/health", guarded(ctx -> {
            ObjectNode worker = jobs.worker(ctx.pathParam("id"));
            ok(ctx, worker.path("status").asText().equals("ok") ? 200 : 503, worker);
        }));
        config.routes.post("/ojs/v1/cron", guarded(ctx -> ok(ctx, 201, Map.of("cron", jobs.putCron(body(ctx))))));
        config.routes.get("/ojs/v1/cron", guarded(ctx -> ok(ctx, 200, Map.of("crons", jobs.crons()))));
        config.routes.delete(
                "/ojs/v1/cron/{name}",
                guarded(ctx -> ok(ctx, 200, Map.of("cron", jobs.deleteCron(ctx.pathParam("name"))))));
    }

    private void manifest(Context ctx) {
        ok(
                ctx,
                200,
                Map.of(
                        "specversion",
                        VERSION,
                        "implementation",
                        Map.of("name", "baton", "language", "java", "homepage", "docs/ojs.md"),
                        "conformance_level",
                        4, // the suite's rule: every case of level 4 and those below pass (OjsConformanceTest checks
                        // this figure)
                        "protocols",
                        List.of("http"),
                        "backend",
                        backend,
                        "capabilities",
                        new TreeMap<>(Map.ofEntries(
                                Map.entry("batch_enqueue", true),
                                Map.entry("dead_letter", true),
                                Map.entry("events", true),
                                Map.entry("pause_resume", true),
                                Map.entry("scheduled_jobs", true),
                                Map.entry("expiring_jobs", true),
                                Map.entry("cron", true),
                                Map.entry("workflows", true),
                                Map.entry("unique_jobs", true),
                                Map.entry("rate_limits", true),
                                Map.entry("graceful_shutdown", true)))));
    }

    private void push(Context ctx) {
        JsonNode body = body(ctx);
        OjsPush.Pushed pushed = jobs.push(List.of(body)).get(0);
        ok(ctx, pushed.created() ? 201 : 200, Map.of("job", pushed.job()));
    }

    private void pushBatch(Context ctx) {
        JsonNode body = body(ctx);
        JsonNode list = body.path("jobs");
        if (!list.isArray() || list.isEmpty()) throw OjsException.invalid("jobs must be a non-empty array");
        List<JsonNode> bodies = new ArrayList<>();
        list.forEach(bodies::add);
        List<ObjectNode> created =
                jobs.push(bodies).stream().map(OjsPush.Pushed::job).toList();
        ok(ctx, 201, Map.of("jobs", created, "count", created.size()));
    }

    private void fetch(Context ctx) {
        JsonNode body = body(ctx);
        JsonNode queues = body.path("queues");
        if (!queues.isArray() || queues.isEmpty())
            throw OjsException.invalid("queues must be a non-empty array of queue names");
        List<String> names = new ArrayList<>();
        for (JsonNode q : queues) {
            if (!q.isTextual()) throw OjsException.invalid("queues must hold queue names");
            names.add(q.asText());
        }
        int count = body.path("count").asInt(1);
        if (count < 1 || count > MAX_FETCH) throw OjsException.invalid("count must be from 1 to " + MAX_FETCH);
        Duration visibility = millis(body, "visibility_timeout_ms", OjsReservations.DEFAULT_VISIBILITY);
        ok(ctx, 200, Map.of("jobs", jobs.fetch(names, count, text(body, "worker_id"), visibility)));
    }

    private void ack(Context ctx) {
        JsonNode body = body(ctx);
        ok(ctx, 200, jobs.ack(jobId(body), text(body, "worker_id"), body.get("result")));
    }

    /** Seed 002's {@code POST /jobs/{id}/ack}: the job from the path; the body (worker_id, result) is optional. */
    private void ackByPath(Context ctx) {
        JsonNode body = ctx.bodyAsBytes().length == 0 ? JsonNodeFactory.instance.objectNode() : body(ctx);
        ok(ctx, 200, jobs.ack(ctx.pathParam("id"), text(body, "worker_id"), body.get("result")));
    }

    private void audited(Context ctx, String action, Map<String, Object> detail) throws IOException {
        Principal who = ctx.attribute(PRINCIPAL);
        if (who != null) audit.record(who, action, ctx.path(), JSON.writeValueAsString(detail), ctx.ip());
    }

    private void nack(Context ctx) {
        JsonNode body = body(ctx);
        JsonNode error = body.get("error");
        if (error != null && !error.isNull() && !error.isObject())
            throw OjsException.invalid("error must be an object");
        ok(
                ctx,
                200,
                jobs.nack(
                        jobId(body),
                        text(body, "worker_id"),
                        error,
                        body.path("requeue").asBoolean(false)));
    }

    private void heartbeat(Context ctx) {
        JsonNode body = body(ctx);
        // active_jobs is either the ids themselves or a count with the ids in active_job_ids.
        List<String> ids = new ArrayList<>();
        JsonNode active = body.path("active_jobs").isArray() ? body.get("active_jobs") : body.path("active_job_ids");
        if (active.isArray()) active.forEach(id -> ids.add(id.asText()));
        Duration visibility = millis(body, "visibility_timeout_ms", OjsReservations.DEFAULT_VISIBILITY);
        ok(ctx, 200, jobs.heartbeat(text(body, "worker_id"), text(body, "state"), ids, visibility));
    }

    private void queues(Context ctx) {
        Set<String> paused = jobs.paused();
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        for (String name : jobs.counts().keySet()) {
            ObjectNode q = list.addObject();
            q.put("name", name);
            q.put("status", paused.contains(name) ? "paused" : "active");
        }
        ok(ctx, 200, Map.of("queues", list));
    }

    private void stats(Context ctx) {
        ok(
                ctx,
                200,
                Map.of(
                        "queue",
                        queue(ctx.pathParam("name"), jobs.counts().getOrDefault(ctx.pathParam("name"), Map.of()))));
    }

    /** A queue: name, whether paused, and its job count per state (flat, and again under "stats"). */
    private Map<String, Object> queue(String name, Map<String, Long> known) {
        Map<String, Long> counts = new TreeMap<>();
        for (OjsState s : OjsState.values()) counts.put(s.wire(), 0L);
        counts.putAll(known);
        boolean paused = jobs.paused().contains(name);
        Map<String, Object> q = new TreeMap<>(counts);
        q.put("name", name);
        q.put("paused", paused);
        q.put("status", paused ? "paused" : "active");
        q.put("stats", counts);
        return q;
    }

    private void pause(Context ctx, boolean paused) {
        String name = ctx.pathParam("name");
        if (!OjsEnvelope.QUEUE.matcher(name).matches()) throw OjsException.invalid("not a queue name: " + name);
        jobs.pause(name, paused);
        ok(ctx, 200, Map.of("queue", queue(name, jobs.counts().getOrDefault(name, Map.of()))));
    }

    private void deadLetter(Context ctx) {
        int limit = intParam(ctx, "limit", 100);
        List<ObjectNode> list = jobs.deadLetter(limit);
        ok(ctx, 200, Map.of("jobs", list, "pagination", Map.of("total", list.size(), "limit", limit)));
    }

    private void events(Context ctx) {
        List<String> types = csv(ctx.queryParam("types"));
        List<String> queues = csv(ctx.queryParam("queues"));
        int limit = intParam(ctx, "limit", 100);
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (OjsEvent e : jobs.events(types, queues, limit)) {
            ObjectNode n = out.addObject();
            n.put("id", Long.toString(e.seq()));
            n.put("specversion", VERSION);
            n.put("type", e.type());
            n.put("source", "baton");
            n.put("subject", e.jobId());
            n.put("time", OjsJson.format(e.created()));
            n.set("data", OjsJson.read(e.data()));
        }
        ok(ctx, 200, Map.of("events", out));
    }

    // ---- plumbing ---------------------------------------------------------------------------

    private static List<String> csv(String value) {
        if (value == null || value.isBlank()) return List.of();
        return Arrays.stream(value.split(","))
                .map(String::strip)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    private static int intParam(Context ctx, String name, int fallback) {
        String v = ctx.queryParam(name);
        if (v == null) return fallback;
        try {
            int n = Integer.parseInt(v);
            if (n < 1 || n > 1000) throw OjsException.invalid(name + " must be from 1 to 1000");
            return n;
        } catch (NumberFormatException e) {
            throw OjsException.invalid(name + " must be an integer");
        }
    }

    private static String jobId(JsonNode body) {
        JsonNode id = body.get("job_id");
        if (id == null || !id.isTextual() || id.asText().isEmpty()) throw OjsException.invalid("job_id is required");
        return id.asText();
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static Duration millis(JsonNode body, String field, Duration fallback) {
        if (!body.has(field)) return fallback;
        JsonNode v = body.get(field);
        if (!v.isIntegralNumber() || v.asLong() <= 0) throw OjsException.invalid(field + " must be a positive integer");
        return Duration.ofMillis(v.asLong());
    }

    /** The request body as JSON: application/openjobspec+json or application/json, an object. */
    private static JsonNode body(Context ctx) {
        String type = ctx.header("Content-Type");
        if (type != null && !type.isBlank()) {
            String base = type.split(";")[0].strip().toLowerCase(Locale.ROOT);
            if (!base.equals(MEDIA_TYPE) && !base.equals("application/json")) {
                throw new OjsException(
                        415,
                        "unsupported_media_type",
                        "validation_error",
                        "Content-Type must be " + MEDIA_TYPE + " or application/json");
            }
        }
        byte[] bytes = ctx.bodyAsBytes();
        if (bytes.length == 0)
            throw OjsException.invalidPayload("the request body is empty; a JSON object is required");
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.isObject())
                throw OjsException.invalidPayload("the request body must be a JSON object");
            return node;
        } catch (IOException e) {
            throw OjsException.invalidPayload("the request body is not valid JSON");
        }
    }

    private static void ok(Context ctx, int status, Object body) {
        try {
            ctx.status(status);
            ctx.contentType(MEDIA_TYPE);
            ctx.result(JSON.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@link #wrap} behind {@code Authorization: Bearer <admin token>}; a refusal is an OJS error and changes nothing. */
    private Handler guarded(Handler handler) {
        return wrap(ctx -> {
            String presented = BearerToken.of(ctx.header("Authorization")).orElse(null);
            if (presented == null)
                throw OjsException.unauthorized("missing 'Authorization: Bearer <admin token>' header");
            if (presented.startsWith(RunnerKey.PREFIX))
                throw OjsException.forbidden(
                        "runner keys work only on the runner channel; the OJS binding needs the admin token");
            Principal who = authenticator
                    .authenticate(presented)
                    .orElseThrow(() -> OjsException.unauthorized(
                            "unknown, revoked or expired token (the OJS binding needs the admin token)"));
            if (!(who instanceof Principal.Admin))
                throw OjsException.forbidden("the OJS binding is server-wide: it needs the admin token");
            ctx.attribute(PRINCIPAL, who);
            handler.handle(ctx);
        });
    }

    private static Handler wrap(Handler handler) {
        return ctx -> {
            String requestId = ctx.header("X-Request-Id");
            if (requestId == null || requestId.isBlank() || requestId.length() > 200)
                requestId = "req_" + UUID.randomUUID();
            ctx.header("OJS-Version", VERSION);
            ctx.header("X-Request-Id", requestId);
            try {
                handler.handle(ctx);
            } catch (OjsException e) {
                ObjectNode error = JsonNodeFactory.instance.objectNode();
                ObjectNode inner = error.putObject("error");
                inner.put("code", e.code);
                inner.put("type", e.type);
                inner.put("message", e.getMessage());
                inner.put("retryable", false);
                inner.put("hint", hint(e));
                inner.put("docs_url", DOCS_URL);
                inner.put("request_id", requestId);
                ok(ctx, e.status, error);
            }
        };
    }

    private static String hint(OjsException e) {
        return switch (e.status) {
            case 401, 403 -> "send 'Authorization: Bearer <admin token>' (the server's data_dir/admin-token)";
            case 404 -> "check the id; GET /ojs/v1/jobs/{id} shows a job";
            case 409 -> "read the job's state with GET /ojs/v1/jobs/{id}; only an active job can be acked or failed";
            default -> "see docs/ojs.md for the job envelope and its rules";
        };
    }
}
