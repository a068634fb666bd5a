package dev.baton.server.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.server.store.OjsStore;
import dev.baton.server.store.OjsWorker;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A worker's own state, from its beats (seed 002): running, quiet, draining, terminate or
 * terminated. A stopping worker is handed no new jobs ({@link OjsReservations#fetch}) and its
 * health answers degraded.
 */
final class OjsWorkers {
    /** Worker states in which fetch hands out nothing (a beat's {@code drain} is stored as {@code draining}). */
    static final Set<String> STOPPING = Set.of("draining", "quiet", "terminate", "terminated");

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

    /** A beat ({@code POST /ojs/v1/workers/beat}): records the worker's state; a draining worker is handed no new jobs. */
    ObjectNode beat(JsonNode body) {
        JsonNode id = body.get("worker_id");
        if (id == null || !id.isTextual() || id.asText().isBlank()) throw OjsException.invalid("worker_id is required");
        String state = body.path("state").asText("running");
        if (state.equals("drain") || state.equals("shutting_down")) state = "draining";
        if (!Set.of("running", "quiet", "draining", "terminate", "terminated").contains(state)) {
            throw OjsException.invalid("state must be running, quiet, drain, terminate or terminated");
        }
        Instant now = clock.instant();
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("worker_id", id.asText());
        doc.put("state", state);
        doc.set("active_jobs", body.path("active_jobs").isMissingNode() ? JsonNodeFactory.instance.nullNode() : body.get("active_jobs"));
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
            answer.set("jobs_extended", reservations.heartbeat(id.asText(), ids, OjsReservations.DEFAULT_VISIBILITY).get("jobs_extended"));
        }
        answer.put("server_time", OjsJson.format(now));
        return answer;
    }

    /** The worker as its last beat described it. */
    ObjectNode worker(String id) {
        OjsWorker w = store.findWorker(id).orElseThrow(() -> OjsException.notFound("worker " + id));
        ObjectNode doc = OjsJson.read(w.document());
        doc.put("status", STOPPING.contains(w.state()) ? "degraded" : "ok");
        return doc;
    }
}
