package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import dev.baton.store.OjsWorker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * OJS workers (seed 002, issue 47): registration, their own state from their beats and
 * heartbeats (running, quiet, draining, terminate or terminated) and the state an operator
 * directs ({@code quiet}, {@code terminate}), told in the worker's next heartbeat answer. A
 * stopping worker is handed no new jobs ({@link OjsReservations#fetch}) and its health answers
 * degraded. A registered worker terminated for silence ({@link OjsDeadWorkers}) is refused until
 * it registers again.
 */
final class OjsWorkers {
    /** Worker states in which fetch hands out nothing (a beat's {@code drain} is stored as {@code draining}). */
    static final Set<String> STOPPING = Set.of("draining", "quiet", "terminate", "terminated");
    /** Seed 002's defaults: a beat every 5 s; silent for 30 s means dead. */
    static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(5);

    static final Duration DEFAULT_HEARTBEAT_TIMEOUT = Duration.ofSeconds(30);
    static final int DEFAULT_CONCURRENCY = 10;
    /** The states an operator may direct, weakest first (a heartbeat answers the strongest one in force). */
    static final List<String> DIRECTIVES = List.of("running", "quiet", "terminate");

    private final OjsStore store;
    private final Clock clock;
    private final OjsSweep sweep;
    private final OjsReservations reservations;

    OjsWorkers(OjsStore store, Clock clock, OjsSweep sweep, OjsReservations reservations) {
        this.store = store;
        this.clock = clock;
        this.sweep = sweep;
        this.reservations = reservations;
    }

    /** {@code POST /ojs/v1/workers/register}: records the worker as running, whatever it was before. */
    ObjectNode register(JsonNode body) {
        String id = body.hasNonNull("worker_id") ? body.get("worker_id").asText() : "worker-" + UUID.randomUUID();
        if (id.isBlank() || id.length() > 200) throw OjsException.invalid("worker_id must be 1 to 200 characters");
        ArrayNode queues = names(body, "queues");
        if (queues.isEmpty()) queues.add("default");
        ArrayNode labels = names(body, "labels");
        int concurrency = DEFAULT_CONCURRENCY;
        if (body.has("concurrency")) {
            JsonNode c = body.get("concurrency");
            if (!c.isIntegralNumber() || c.asInt() < 1) {
                throw OjsException.invalid("concurrency must be a positive integer");
            }
            concurrency = c.asInt();
        }
        Duration timeout = DEFAULT_HEARTBEAT_TIMEOUT;
        if (body.has("heartbeat_timeout_ms")) {
            JsonNode t = body.get("heartbeat_timeout_ms");
            if (!t.isIntegralNumber() || t.asLong() < HEARTBEAT_INTERVAL.toMillis()) {
                throw OjsException.invalid(
                        "heartbeat_timeout_ms must be an integer of at least " + HEARTBEAT_INTERVAL.toMillis());
            }
            timeout = Duration.ofMillis(t.asLong());
        }
        if (body.has("pid") && !body.get("pid").isIntegralNumber()) {
            throw OjsException.invalid("pid must be an integer");
        }
        if (body.has("hostname") && !body.get("hostname").isTextual()) {
            throw OjsException.invalid("hostname must be a string");
        }
        Instant now = clock.instant();
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("worker_id", id);
        doc.put("state", "running");
        if (body.has("hostname")) doc.put("hostname", body.get("hostname").asText());
        if (body.has("pid")) doc.put("pid", body.get("pid").asLong());
        doc.set("queues", queues);
        doc.put("concurrency", concurrency);
        doc.set("labels", labels);
        doc.put("heartbeat_timeout_ms", timeout.toMillis());
        doc.put("registered_at", OjsJson.format(now));
        doc.put("last_beat_at", OjsJson.format(now));
        doc.putArray("active_job_ids");
        store.registerWorker(new OjsWorker(id, "running", now, OjsJson.write(doc), null, timeout));
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("worker_id", id);
        answer.put("state", "running");
        answer.put("visibility_timeout", OjsReservations.DEFAULT_VISIBILITY.toSeconds());
        answer.put("heartbeat_interval", HEARTBEAT_INTERVAL.toSeconds());
        answer.put("heartbeat_timeout", timeout.toSeconds());
        answer.put("server_time", OjsJson.format(now));
        return answer;
    }

    private static ArrayNode names(JsonNode body, String field) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        if (!body.has(field) || body.get(field).isNull()) return out;
        if (!body.get(field).isArray()) throw OjsException.invalid(field + " must be an array of strings");
        for (JsonNode n : body.get(field)) {
            if (!n.isTextual() || n.asText().isBlank()) {
                throw OjsException.invalid(field + " must be an array of strings");
            }
            out.add(n.asText());
        }
        return out;
    }

    /** Refuses a terminated registered worker; a worker that never registered is not checked (the 1.0 binding). */
    void requireAlive(String workerId) {
        if (workerId == null) return;
        store.findWorker(workerId)
                .filter(w -> w.registered() && w.state().equals("terminated"))
                .ifPresent(w -> {
                    throw OjsException.workerTerminated(workerId);
                });
    }

    /**
     * A heartbeat from a registered worker moves its last beat and records its state and the jobs
     * it holds; answers the state an operator directed (null for none, or for an unregistered worker).
     */
    String heartbeat(String workerId, String reportedState, List<String> activeJobs) {
        if (workerId == null) return null;
        OjsWorker w = store.findWorker(workerId).filter(OjsWorker::registered).orElse(null);
        if (w == null) return null;
        if (w.state().equals("terminated")) throw OjsException.workerTerminated(workerId);
        String state = reportedState == null ? w.state() : normalized(reportedState);
        ObjectNode doc = OjsJson.read(w.document());
        doc.put("state", state);
        doc.put("last_beat_at", OjsJson.format(clock.instant()));
        ArrayNode ids = doc.putArray("active_job_ids");
        activeJobs.forEach(ids::add);
        store.putWorker(new OjsWorker(workerId, state, clock.instant(), OjsJson.write(doc)));
        return w.directive();
    }

    private static String normalized(String state) {
        String s = state.equals("drain") || state.equals("shutting_down") ? "draining" : state;
        if (!Set.of("running", "quiet", "draining", "terminate", "terminated").contains(s)) {
            throw OjsException.invalid("state must be running, quiet, drain, terminate or terminated");
        }
        return s;
    }

    /** The stronger of two directed states (running, quiet, terminate); null counts as running. */
    static String stronger(String a, String b) {
        return DIRECTIVES.indexOf(b == null ? "running" : b) > DIRECTIVES.indexOf(a == null ? "running" : a) ? b : a;
    }

    /** A beat ({@code POST /ojs/v1/workers/beat}): records the worker's state; a draining worker is handed no new jobs. */
    ObjectNode beat(JsonNode body) {
        JsonNode id = body.get("worker_id");
        if (id == null || !id.isTextual() || id.asText().isBlank()) throw OjsException.invalid("worker_id is required");
        String state = normalized(body.path("state").asText("running"));
        Instant now = clock.instant();
        OjsWorker known = store.findWorker(id.asText()).orElse(null);
        boolean registered = known != null && known.registered();
        if (registered && known.state().equals("terminated")) throw OjsException.workerTerminated(id.asText());
        // A registered worker keeps what it registered with; a beat only updates its state.
        ObjectNode doc = registered ? OjsJson.read(known.document()) : JsonNodeFactory.instance.objectNode();
        doc.put("worker_id", id.asText());
        doc.put("state", state);
        doc.set(
                "active_jobs",
                body.path("active_jobs").isMissingNode()
                        ? JsonNodeFactory.instance.nullNode()
                        : body.get("active_jobs"));
        if (body.has("shutdown")) doc.set("shutdown", body.get("shutdown"));
        doc.put("last_beat_at", OjsJson.format(now));
        store.putWorker(new OjsWorker(id.asText(), state, now, OjsJson.write(doc)));
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("acknowledged", true);
        answer.put("worker_id", id.asText());
        answer.put("state", state);
        // A beat is a heartbeat too (seed 002): the jobs it names keep their leases, a draining worker's included.
        JsonNode named = body.path("active_job_ids").isArray() ? body.get("active_job_ids") : body.path("active_jobs");
        if (named.isArray()) {
            List<String> ids = new ArrayList<>();
            named.forEach(j -> ids.add(j.asText()));
            sweep.sweep(); // as a heartbeat does, before it reads the jobs
            answer.set(
                    "jobs_extended",
                    reservations
                            .heartbeat(id.asText(), ids, OjsReservations.DEFAULT_VISIBILITY)
                            .get("jobs_extended"));
        }
        if (known != null && known.directive() != null) answer.put("directive", known.directive());
        answer.put("server_time", OjsJson.format(now));
        return answer;
    }

    /** The worker as its last beat described it, with a health status. */
    ObjectNode worker(String id) {
        OjsWorker w = store.findWorker(id).orElseThrow(() -> OjsException.notFound("worker " + id));
        ObjectNode doc = OjsJson.read(w.document());
        doc.put("status", STOPPING.contains(w.state()) ? "degraded" : "ok");
        return doc;
    }

    /** {@code GET /ojs/v1/workers/{id}}: registration, state, directed state, last beat and the jobs it holds. */
    ObjectNode view(String id) {
        return view(store.findWorker(id).orElseThrow(() -> OjsException.notFound("worker " + id)));
    }

    List<ObjectNode> list() {
        return store.workers().stream().map(this::view).toList();
    }

    private ObjectNode view(OjsWorker w) {
        ObjectNode doc = OjsJson.read(w.document());
        doc.put("worker_id", w.id());
        doc.put("state", w.state());
        if (w.directive() == null) doc.putNull("directed_state");
        else doc.put("directed_state", w.directive());
        doc.put("registered", w.registered());
        doc.put("last_beat_at", OjsJson.format(w.lastBeat()));
        ArrayNode reserved = doc.putArray("reserved_job_ids");
        for (OjsRow row : store.jobsOfWorker(w.id(), OjsState.ACTIVE.wire())) reserved.add(row.id());
        doc.put("active_jobs", reserved.size());
        return doc;
    }

    /** Directs one worker ({@code running} withdraws an earlier direction); returns its view. */
    ObjectNode direct(String id, String state) {
        OjsWorker w = store.findWorker(id).orElseThrow(() -> OjsException.notFound("worker " + id));
        if (w.state().equals("terminated") || !store.directWorker(id, state.equals("running") ? null : state)) {
            throw OjsException.conflict("worker " + id + " is terminated; nothing can be directed to it");
        }
        return view(id);
    }

    /** Directs every worker not terminated that consumes {@code queue}; returns their ids. */
    List<String> directQueue(String queue, String state) {
        List<String> directed = new ArrayList<>();
        for (OjsWorker w : store.workers()) {
            if (w.state().equals("terminated")) continue;
            boolean consumes = false;
            for (JsonNode q : OjsJson.read(w.document()).path("queues"))
                consumes |= q.asText().equals(queue);
            if (consumes && store.directWorker(w.id(), state.equals("running") ? null : state)) directed.add(w.id());
        }
        return directed;
    }
}
