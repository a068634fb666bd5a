package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import dev.baton.store.OjsWorkflow;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * OJS workflows (level 3): a {@code chain} runs its steps one after the other, each step's job
 * enqueued when the one before completed and handed that one's result as {@code parent_results};
 * a {@code group} enqueues its jobs at once and ends when all have; a {@code batch} is a group
 * with callbacks ({@code on_complete} always, {@code on_success} when every job completed,
 * {@code on_failure} when one did not).
 *
 * <p>The workflow is a row of its own (its steps and the ids of the jobs made for them are the
 * document). Its state is a function of its jobs' states: {@link #advance} reads them, decides,
 * and compare-and-sets the workflow together with the jobs the decision enqueues, in one
 * transaction. It runs when a job of the workflow reaches a terminal state and, for running
 * workflows, in the background sweep (a node that stopped between an ack and the advance); a lost
 * compare-and-set means another request or node advanced it, and the decision is made again on
 * what that one wrote, so no step is enqueued twice.
 */
final class OjsWorkflows {
    static final Set<String> TYPES = Set.of("chain", "group", "batch");
    private static final List<String> CALLBACKS = List.of("on_complete", "on_success", "on_failure");
    private static final int MAX_JOBS = 1000;
    private static final int CAS_TRIES = 20;

    /** Running workflows looked at per background sweep. */
    private static final int SWEEP_BATCH = 50;

    private final OjsStore store;
    private final OjsJobs jobs;
    /** Where the background sweep continues (only the sweep's thread uses it; null: from the start). */
    private String sweepCursor;

    private final UuidV7 ids;

    OjsWorkflows(OjsStore store, OjsJobs jobs, UuidV7 ids) {
        this.store = store;
        this.jobs = jobs;
        this.ids = ids;
    }

    /** Validates the whole request before writing; then the workflow and its first jobs in one transaction. */
    ObjectNode create(JsonNode body) {
        Instant now = jobs.now();
        String type = body.path("type").asText("");
        if (!TYPES.contains(type)) throw OjsException.invalid("type must be chain, group or batch");
        JsonNode name = body.get("name");
        if (name != null && !name.isNull() && !name.isTextual()) throw OjsException.invalid("name must be a string");
        String field = type.equals("chain") ? "steps" : "jobs";
        JsonNode list = body.has(field) ? body.get(field) : body.get(type.equals("chain") ? "jobs" : "steps");
        if (list == null || !list.isArray() || list.isEmpty())
            throw OjsException.invalid(field + " must be a non-empty array of jobs");
        if (list.size() > MAX_JOBS) throw OjsException.invalid(field + " holds at most " + MAX_JOBS + " jobs");
        List<OjsEnvelope.Parsed> parsed = new ArrayList<>();
        for (JsonNode job : list) parsed.add(OjsEnvelope.parse(job, now));
        ObjectNode callbacks = JsonNodeFactory.instance.objectNode();
        if (body.hasNonNull("callbacks")) {
            JsonNode c = body.get("callbacks");
            if (!c.isObject()) throw OjsException.invalid("callbacks must be an object");
            if (!type.equals("batch")) throw OjsException.invalid("callbacks are for batch workflows");
            for (var it = c.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                if (!CALLBACKS.contains(k))
                    throw OjsException.invalid("callbacks may hold on_complete, on_success and on_failure");
                OjsEnvelope.parse(c.get(k), now);
                callbacks.set(k, c.get(k));
            }
        }
        // Later chain steps are inserted only when their turn comes, so every id is looked for now.
        Set<String> named = new HashSet<>();
        for (OjsEnvelope.Parsed p : parsed) {
            if (p.id() != null && !named.add(p.id()))
                throw OjsException.duplicate("the workflow names id " + p.id() + " twice");
            if (p.id() != null && store.findJob(p.id()).isPresent())
                throw OjsException.duplicate("a job with id " + p.id() + " exists");
        }
        String id = ids.next();
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("id", id);
        doc.put("type", type);
        if (name != null && name.isTextual()) doc.put("name", name.asText());
        doc.put("state", "running");
        doc.put("created_at", OjsJson.format(now));
        ArrayNode nodes = doc.putArray("nodes");
        List<OjsPush.Prepared> first = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            ObjectNode n = nodes.addObject();
            n.set("spec", list.get(i));
            if (type.equals("chain") && i > 0) continue;
            OjsPush.Prepared job = jobs.prepare(parsed.get(i), now, membership(id, i, null));
            n.put("job_id", job.row().id());
            first.add(job);
        }
        if (!callbacks.isEmpty()) doc.set("callbacks", callbacks);
        count(doc, Map.of());
        store.insertWorkflow(
                new OjsWorkflow(id, "running", 0, OjsJson.write(doc)),
                first.stream().map(OjsPush.Prepared::row).toList(),
                now);
        for (OjsPush.Prepared job : first) jobs.enqueued(job.doc(), now);
        return served(doc);
    }

    ObjectNode get(String id) {
        return served(OjsJson.read(find(id).document()));
    }

    private OjsWorkflow find(String id) {
        return store.findWorkflow(id).orElseThrow(() -> OjsException.notFound("workflow " + id));
    }

    /** Cancels a running workflow: no further step is enqueued, and its jobs not yet finished are cancelled. */
    ObjectNode cancel(String id) {
        for (int i = 0; i < CAS_TRIES; i++) {
            OjsWorkflow wf = find(id);
            if (!wf.state().equals("running"))
                throw OjsException.conflict("workflow " + id + " is " + wf.state() + "; it cannot be cancelled");
            ObjectNode doc = OjsJson.read(wf.document());
            doc.put("state", "cancelled");
            doc.put("cancelled_at", OjsJson.format(jobs.now()));
            if (!store.advanceWorkflow(
                    new OjsWorkflow(id, "cancelled", wf.version(), OjsJson.write(doc)), List.of(), jobs.now()))
                continue;
            // The workflow is cancelled first, so no advance enqueues another step meanwhile.
            for (JsonNode n : doc.get("nodes")) {
                if (n.hasNonNull("job_id")) jobs.cancelIfRunning(n.get("job_id").asText());
            }
            return served(doc);
        }
        throw OjsException.conflict("workflow " + id + " kept changing; try again");
    }

    /**
     * Brings a running workflow up to date with its jobs: enqueues the next chain step, ends it
     * (completed, or failed when a job did not complete), fires a batch's callbacks. Idempotent.
     */
    void advance(String id) {
        for (int i = 0; i < CAS_TRIES; i++) {
            Optional<OjsWorkflow> found = store.findWorkflow(id);
            if (found.isEmpty() || !found.get().state().equals("running")) return;
            OjsWorkflow wf = found.get();
            ObjectNode doc = OjsJson.read(wf.document());
            Map<String, OjsRow> rows = new HashMap<>();
            List<String> jobIds = new ArrayList<>();
            doc.get("nodes").forEach(n -> {
                if (n.hasNonNull("job_id")) jobIds.add(n.get("job_id").asText());
            });
            store.jobsById(jobIds).forEach(r -> rows.put(r.id(), r));
            Instant now = jobs.now();
            List<OjsPush.Prepared> enqueue =
                    doc.get("type").asText().equals("chain") ? chain(doc, rows, now) : together(doc, rows, now);
            count(doc, rows);
            if (!doc.get("state").asText().equals("running")) doc.put("completed_at", OjsJson.format(now));
            if (doc.equals(OjsJson.read(wf.document()))) return;
            OjsWorkflow next = new OjsWorkflow(id, doc.get("state").asText(), wf.version(), OjsJson.write(doc));
            if (store.advanceWorkflow(
                    next, enqueue.stream().map(OjsPush.Prepared::row).toList(), now)) {
                for (OjsPush.Prepared job : enqueue) jobs.enqueued(job.doc(), now);
                return;
            }
        }
    }

    /**
     * Brings the next few running workflows up to date (the background sweep): a bounded number
     * per call, continuing after the last one seen, so that many long-running workflows cost
     * the same per sweep and each is still visited in turn.
     */
    void advanceRunning() {
        List<OjsWorkflow> running = store.workflowsInState("running", sweepCursor, SWEEP_BATCH);
        sweepCursor = running.size() < SWEEP_BATCH
                ? null
                : running.get(running.size() - 1).id();
        for (OjsWorkflow wf : running) advance(wf.id());
    }

    /** A chain: the first step without a completed job decides. */
    private List<OjsPush.Prepared> chain(ObjectNode doc, Map<String, OjsRow> rows, Instant now) {
        ArrayNode nodes = (ArrayNode) doc.get("nodes");
        JsonNode previousResult = null;
        for (int i = 0; i < nodes.size(); i++) {
            ObjectNode n = (ObjectNode) nodes.get(i);
            if (!n.hasNonNull("job_id")) {
                ArrayNode parents = JsonNodeFactory.instance.arrayNode();
                if (previousResult != null) parents.add(previousResult);
                OjsPush.Prepared job = jobs.prepare(
                        OjsEnvelope.parse(n.get("spec"), now),
                        now,
                        membership(doc.get("id").asText(), i, parents));
                n.put("job_id", job.row().id());
                return List.of(job);
            }
            OjsState state = state(rows.get(n.get("job_id").asText()));
            if (state == OjsState.COMPLETED) {
                previousResult = OjsJson.read(rows.get(n.get("job_id").asText()).document())
                        .get("result");
                continue;
            }
            if (state.terminal()) doc.put("state", "failed"); // the steps after it never run
            return List.of();
        }
        doc.put("state", "completed");
        return List.of();
    }

    /** A group or batch: ends when every job has; a batch then enqueues its callbacks. */
    private List<OjsPush.Prepared> together(ObjectNode doc, Map<String, OjsRow> rows, Instant now) {
        boolean failed = false;
        for (JsonNode n : doc.get("nodes")) {
            OjsState state = state(rows.get(n.path("job_id").asText()));
            if (!state.terminal()) return List.of();
            failed |= state != OjsState.COMPLETED;
        }
        doc.put("state", failed ? "failed" : "completed");
        List<OjsPush.Prepared> callbacks = new ArrayList<>();
        JsonNode defined = doc.path("callbacks");
        for (String kind : CALLBACKS) {
            boolean fires = switch (kind) {
                case "on_success" -> !failed;
                case "on_failure" -> failed;
                default -> true; // on_complete
            };
            if (!fires || !defined.has(kind)) continue;
            ObjectNode extra = JsonNodeFactory.instance.objectNode();
            ObjectNode of = extra.putObject("workflow_callback");
            of.put("workflow_id", doc.get("id").asText());
            of.put("callback", kind);
            OjsPush.Prepared job = jobs.prepare(OjsEnvelope.parse(defined.get(kind), now), now, extra);
            ObjectNode fired =
                    doc.has("callback_jobs") ? (ObjectNode) doc.get("callback_jobs") : doc.putObject("callback_jobs");
            fired.put(kind, job.row().id());
            callbacks.add(job);
        }
        return callbacks;
    }

    /** A job the store no longer has counts as cancelled. */
    private static OjsState state(OjsRow row) {
        return row == null ? OjsState.CANCELLED : OjsState.of(row.state());
    }

    private static ObjectNode membership(String workflowId, int index, ArrayNode parentResults) {
        ObjectNode extra = JsonNodeFactory.instance.objectNode();
        extra.put("workflow_id", workflowId);
        extra.put("workflow_index", index);
        if (parentResults != null) extra.set("parent_results", parentResults);
        return extra;
    }

    /** The counters the workflow answers with: steps for a chain, jobs for a group or batch. */
    private static void count(ObjectNode doc, Map<String, OjsRow> rows) {
        int total = doc.get("nodes").size();
        int completed = 0;
        int failed = 0;
        for (JsonNode n : doc.get("nodes")) {
            OjsRow row = rows.get(n.path("job_id").asText());
            if (row == null) continue;
            OjsState s = OjsState.of(row.state());
            if (s == OjsState.COMPLETED) completed++;
            else if (s.terminal()) failed++;
        }
        String unit = doc.get("type").asText().equals("chain") ? "steps" : "jobs";
        doc.put(unit + "_total", total);
        doc.put(unit + "_completed", completed);
        doc.put(unit + "_failed", failed);
    }

    /** The workflow as served: its steps' job ids, not their specs. */
    private static ObjectNode served(ObjectNode doc) {
        ObjectNode copy = doc.deepCopy();
        ArrayNode jobsList = JsonNodeFactory.instance.arrayNode();
        for (JsonNode n : doc.get("nodes")) {
            ObjectNode j = jobsList.addObject();
            j.put("type", n.path("spec").path("type").asText());
            if (n.hasNonNull("job_id")) j.put("job_id", n.get("job_id").asText());
            else j.putNull("job_id");
        }
        copy.remove("nodes");
        copy.set(doc.get("type").asText().equals("chain") ? "steps" : "jobs", jobsList);
        return copy;
    }
}
