package dev.baton.server.ojs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.server.schedule.CronExpression;
import dev.baton.server.store.OjsCron;
import dev.baton.server.store.OjsEvent;
import dev.baton.server.store.OjsRow;
import dev.baton.server.store.OjsStore;
import dev.baton.server.store.OjsUnique;
import dev.baton.server.store.OjsWorker;
import dev.baton.server.store.StoreException;
import dev.baton.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The OJS job lifecycle over Baton's store. Every change is a compare-and-set on the job's
 * version, so concurrent requests (and other server nodes on the same database) never both
 * reserve, ack or fail one job: the loser re-reads and decides again. Time comes from the
 * injected clock; waiting jobs become available and expired reservations return to the queue
 * when any request sweeps (every operation does, before it reads).
 */
final class OjsJobs {
    /** Without visibility_timeout_ms from the job or the fetch: long enough for a job between heartbeats. */
    static final Duration DEFAULT_VISIBILITY = Duration.ofMinutes(5);
    private static final int CAS_TRIES = 20;
    /** Worker states in which fetch hands out nothing (a beat's {@code drain} is stored as {@code draining}). */
    static final Set<String> STOPPING = Set.of("draining", "quiet", "terminate", "terminated");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OjsJobs.class);

    private final OjsStore store;
    private final Clock clock;
    private final UuidV7 ids;
    private final SplittableRandom random = new SplittableRandom();
    private final OjsWorkflows workflows;

    OjsJobs(Store store, Clock clock) {
        this.store = store.ojs();
        this.clock = clock;
        this.ids = new UuidV7(clock);
        this.workflows = new OjsWorkflows(this.store, this, ids);
    }

    OjsWorkflows workflows() {
        return workflows;
    }

    static String format(Instant t) {
        return t.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    Instant now() {
        return clock.instant();
    }

    // ---- push -----------------------------------------------------------------------------

    /** A pushed job as answered: created (201), or the existing job an {@code ignore} unique policy returned (200). */
    record Pushed(ObjectNode job, boolean created) {}

    /**
     * Validates the whole request first, then writes; a refused request writes nothing. Every job
     * is parsed, and for a batch the ids it names and the duplicates a {@code reject} unique
     * policy refuses are looked for, before the first insert (a batch's jobs are inserted one by
     * one, so only a concurrent push of the same id or key between that look and the insert can
     * still refuse a later job of the batch). One job needs no look: its insert answers the same.
     * A queue's rate limit is written only with a job that is enqueued, in the job's transaction (a
     * fetch never sees the job without its limit): a push that is refused, or answered with the
     * existing job under {@code ignore}, leaves the limit as it was.
     */
    List<Pushed> push(List<JsonNode> bodies) {
        Instant now = now();
        List<OjsEnvelope.Parsed> parsed = bodies.stream().map(b -> OjsEnvelope.parse(b, now)).toList();
        if (parsed.size() > 1) refuseDuplicates(parsed, now);
        List<Pushed> pushed = new ArrayList<>();
        for (OjsEnvelope.Parsed p : parsed) {
            pushed.add(insert(p, now));
        }
        return pushed;
    }

    /**
     * A batch that names an id twice or an existing id, or holds a {@code reject} duplicate (of a
     * job or of another job of the batch), is refused whole.
     */
    private void refuseDuplicates(List<OjsEnvelope.Parsed> parsed, Instant now) {
        Set<String> batchIds = new HashSet<>();
        Set<String> batchKeys = new HashSet<>();
        for (OjsEnvelope.Parsed p : parsed) {
            if (p.id() != null && !batchIds.add(p.id())) throw OjsException.duplicate("the batch names id " + p.id() + " twice");
            if (p.id() != null && store.findJob(p.id()).isPresent()) throw OjsException.duplicate("a job with id " + p.id() + " exists");
            if (p.unique() != null && p.unique().onConflict().equals("reject")) {
                OjsUnique u = unique(p, now, null);
                if (!batchKeys.add(u.key()) || store.uniqueConflict(u).isPresent()) throw duplicateKey(p);
            }
        }
    }

    private static OjsException duplicateKey(OjsEnvelope.Parsed p) {
        return OjsException.duplicate("a job of type " + p.type() + " with the same unique key (" + String.join(", ", p.unique().keys())
                + ") is in one of the states " + p.unique().states() + (p.unique().period() != null ? " within " + p.unique().period() : ""));
    }

    private OjsUnique unique(OjsEnvelope.Parsed p, Instant now, java.util.function.UnaryOperator<OjsRow> replace) {
        OjsUniquePolicy u = p.unique();
        return new OjsUnique(u.key(p.document()), u.states(), u.period() == null ? null : now.minus(u.period()), replace);
    }

    /** A job ready to insert: its row and its document. */
    record Prepared(OjsRow row, ObjectNode doc) {}

    /** Gives the parsed job its id, state and times; {@code extra} fields (a workflow's) are added to the document. */
    Prepared prepare(OjsEnvelope.Parsed p, Instant now, ObjectNode extra) {
        String id = p.id() != null ? p.id() : ids.next();
        ObjectNode doc = p.document().deepCopy();
        doc.put("id", id);
        doc.put("created_at", format(now));
        boolean later = p.scheduledAt() != null && p.scheduledAt().isAfter(now);
        OjsState state = later ? OjsState.SCHEDULED : OjsState.AVAILABLE;
        doc.put("state", state.wire());
        if (!later) doc.put("enqueued_at", format(now));
        if (extra != null) doc.setAll(extra);
        return new Prepared(OjsRow.fresh(id, p.queue(), state.wire(), p.priority(), later ? p.scheduledAt() : null, write(doc)), doc);
    }

    private Pushed insert(OjsEnvelope.Parsed p, Instant now) {
        Prepared job = prepare(p, now, null);
        String id = job.row().id();
        OjsStore.RateLimit rate = p.rateLimit() == null ? null : p.rateLimit().stored();
        if (p.unique() == null) {
            if (!store.insertJob(job.row(), rate, now)) throw OjsException.duplicate("a job with id " + id + " exists");
            event("job.enqueued", job.doc(), now);
            return new Pushed(job.doc(), true);
        }
        boolean replace = p.unique().onConflict().equals("replace");
        for (int i = 0; i < CAS_TRIES; i++) {
            Optional<OjsRow> conflict;
            // The job a replace cancelled, if it did: the store may run the transaction more than once, the last run counts.
            java.util.concurrent.atomic.AtomicReference<String> cancelled = new java.util.concurrent.atomic.AtomicReference<>();
            try {
                conflict = store.insertUnique(job.row(), unique(p, now, replace ? row -> {
                    cancelled.set(row.id());
                    return replaced(row, id, now);
                } : null), rate, now);
            } catch (StoreException e) {
                throw OjsException.duplicate(e.getMessage());
            }
            if (conflict.isEmpty()) {
                if (cancelled.get() != null) {
                    store.findJob(cancelled.get()).map(r -> read(r.document())).filter(d -> id.equals(d.path("replaced_by").asText()))
                            .ifPresent(d -> changed("job.cancelled", d, now));
                }
                event("job.enqueued", job.doc(), now);
                return new Pushed(job.doc(), true);
            }
            if (p.unique().onConflict().equals("ignore")) return new Pushed(document(conflict.get()), false);
            if (!replace) throw duplicateKey(p);
            // replace: the conflicting job changed between the look and the cancel; look again
        }
        throw OjsException.conflict("the job with the same unique key kept changing; try again");
    }

    /** The cancelled version of a job a {@code replace} unique policy replaces (written by the store, with the new job). */
    private OjsRow replaced(OjsRow row, String by, Instant now) {
        ObjectNode doc = read(row.document());
        doc.put("state", OjsState.CANCELLED.wire());
        doc.put("cancelled_at", format(now));
        doc.put("replaced_by", by);
        return next(row, OjsState.CANCELLED, null, null, row.workerId(), doc);
    }

    // ---- read -----------------------------------------------------------------------------

    ObjectNode info(String id) {
        sweep();
        return document(find(id));
    }

    private OjsRow find(String id) {
        return store.findJob(id).orElseThrow(() -> OjsException.notFound("job " + id));
    }

    // ---- cancel ---------------------------------------------------------------------------

    ObjectNode cancel(String id) {
        sweep();
        return change(id, (row, doc) -> {
            if (state(row).terminal()) throw OjsException.conflict("job " + id + " is " + row.state() + "; it cannot be cancelled");
            Instant now = now();
            doc.put("state", OjsState.CANCELLED.wire());
            doc.put("cancelled_at", format(now));
            return next(row, OjsState.CANCELLED, null, null, row.workerId(), doc);
        }, "job.cancelled");
    }

    /** Cancels the job unless it has finished (a cancelled workflow's jobs); a job that keeps changing is left to finish. */
    void cancelIfRunning(String id) {
        try {
            cancel(id);
        } catch (OjsException e) {
            // finished (409), gone (404) or changing under us: nothing left to cancel
        }
    }

    void enqueued(ObjectNode doc, Instant now) {
        event("job.enqueued", doc, now);
    }

    /**
     * A job's change is committed: its event is appended and, when a workflow job finished, its
     * workflow advances (the job's change stands even if the advance fails: the background sweep
     * repeats it). Every path that moves a job to a new state after it was enqueued ends here.
     */
    private void changed(String eventType, ObjectNode doc, Instant now) {
        event(eventType, doc, now);
        if (!doc.hasNonNull("workflow_id") || !OjsState.of(doc.path("state").asText()).terminal()) return;
        try {
            workflows.advance(doc.get("workflow_id").asText());
        } catch (RuntimeException e) {
            LOG.warn("advancing OJS workflow {} failed; the sweep tries again: {}", doc.get("workflow_id").asText(), e.toString());
        }
    }

    // ---- workers --------------------------------------------------------------------------

    /** Reserves up to {@code count} available jobs, queue by queue in the order given. */
    List<ObjectNode> fetch(List<String> queues, int count, String workerId, Duration visibility) {
        sweep();
        // A worker that said it is draining (or was told to stop) takes no new jobs.
        if (workerId != null && store.findWorker(workerId).map(w -> STOPPING.contains(w.state())).orElse(false)) return List.of();
        Set<String> paused = store.pausedQueues();
        Set<String> limited = store.rateLimitedQueues();
        List<ObjectNode> taken = new ArrayList<>();
        for (String queue : queues) {
            if (paused.contains(queue)) continue;
            boolean spent = false;
            while (taken.size() < count && !spent) {
                List<OjsRow> candidates = store.jobs(queue, OjsState.AVAILABLE.wire(), count - taken.size() + 8);
                if (candidates.isEmpty()) break;
                boolean progressed = false;
                for (OjsRow row : candidates) {
                    if (taken.size() >= count) break;
                    // A slot is taken before the job: a lost race then costs a slot, never a job over the limit.
                    if (limited.contains(queue) && !store.takeRateSlot(queue, now())) {
                        spent = true;
                        break;
                    }
                    Optional<ObjectNode> got = reserve(row, workerId, visibility);
                    if (got.isPresent()) taken.add(got.get());
                    progressed = true;
                }
                if (!progressed) break;
            }
        }
        return taken;
    }

    /** One compare-and-set from available to active; empty when another fetch came first or the job expired. */
    private Optional<ObjectNode> reserve(OjsRow row, String workerId, Duration visibility) {
        Instant now = now();
        ObjectNode doc = read(row.document());
        if (expired(doc, now)) {
            doc.put("state", OjsState.DISCARDED.wire());
            doc.put("discarded_at", format(now));
            doc.put("discard_reason", "expired");
            if (store.updateJob(next(row, OjsState.DISCARDED, null, null, null, doc), now)) {
                changed("job.discarded", doc, now);
            }
            return Optional.empty();
        }
        int attempt = doc.path("attempt").asInt() + 1;
        doc.put("state", OjsState.ACTIVE.wire());
        doc.put("attempt", attempt);
        doc.put("started_at", format(now));
        if (workerId != null) doc.put("worker_id", workerId);
        else doc.remove("worker_id");
        Duration vis = doc.has("visibility_timeout_ms") ? Duration.ofMillis(doc.get("visibility_timeout_ms").asLong()) : visibility;
        doc.put("reserved_visibility_ms", vis.toMillis());
        OjsRow next = next(row, OjsState.ACTIVE, null, deadline(doc, now, vis), workerId, doc);
        if (!store.updateJob(next, now)) return Optional.empty();
        event("job.started", doc, now);
        return Optional.of(served(doc));
    }

    /** The reservation's end: the visibility deadline, or the execution timeout if that comes first. */
    private static Instant deadline(ObjectNode doc, Instant now, Duration visibility) {
        Instant d = now.plus(visibility);
        if (doc.has("timeout_ms") && doc.has("started_at")) {
            Instant timeout = Instant.parse(doc.get("started_at").asText()).plusMillis(doc.get("timeout_ms").asLong());
            if (timeout.isBefore(d)) d = timeout;
        }
        return d;
    }

    private static boolean expired(ObjectNode doc, Instant now) {
        return doc.has("expires_at") && !Instant.parse(doc.get("expires_at").asText()).isAfter(now);
    }

    ObjectNode ack(String id, String workerId, JsonNode result) {
        sweep();
        ObjectNode doc = change(id, (row, d) -> {
            requireHeld(row, workerId);
            Instant now = now();
            d.put("state", OjsState.COMPLETED.wire());
            d.put("completed_at", format(now));
            d.remove("error");
            if (result != null && !result.isNull()) d.set("result", result);
            return next(row, OjsState.COMPLETED, null, null, row.workerId(), d);
        }, "job.completed");
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("acknowledged", true);
        answer.put("id", id);
        answer.put("state", doc.get("state").asText());
        answer.set("completed_at", doc.get("completed_at"));
        answer.set("job", doc);
        return answer;
    }

    ObjectNode nack(String id, String workerId, JsonNode error, boolean requeue) {
        sweep();
        ObjectNode doc = change(id, (row, d) -> {
            requireHeld(row, workerId);
            Instant now = now();
            if (requeue) {
                d.put("state", OjsState.AVAILABLE.wire());
                d.put("enqueued_at", format(now));
                return next(row, OjsState.AVAILABLE, null, null, null, d);
            }
            return fail(row, d, error == null || error.isNull() ? JsonNodeFactory.instance.objectNode() : error, now);
        }, null);
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("id", id);
        for (String f : List.of("state", "attempt", "max_attempts", "next_attempt_at", "retry_delay_ms", "discarded_at", "completed_at")) {
            if (doc.has(f)) answer.set(f, doc.get(f));
        }
        answer.set("job", doc);
        return answer;
    }

    /**
     * A failed attempt: recorded in the error history, then retried after the policy's delay,
     * or discarded (the dead letter) when the error is not retryable or attempts are spent.
     */
    private OjsRow fail(OjsRow row, ObjectNode d, JsonNode error, Instant now) {
        int attempt = d.path("attempt").asInt();
        ObjectNode recorded = JsonNodeFactory.instance.objectNode();
        String code = error.path("code").asText("error");
        recorded.put("code", code);
        String type = error.hasNonNull("type") ? error.get("type").asText()
                : error.path("details").hasNonNull("error_class") ? error.path("details").get("error_class").asText() : code;
        recorded.put("type", type);
        recorded.put("message", error.path("message").asText(""));
        recorded.put("retryable", error.path("retryable").asBoolean(true));
        if (error.has("details")) recorded.set("details", error.get("details"));
        recorded.put("attempt", attempt);
        recorded.put("occurred_at", format(now));
        d.set("error", recorded);
        ArrayNode history = d.has("errors") && d.get("errors").isArray() ? (ArrayNode) d.get("errors") : d.putArray("errors");
        history.add(recorded.deepCopy());
        d.remove("next_attempt_at");
        OjsRetry retry = OjsRetry.parse(d.get("retry"));
        boolean retryable = error.path("retryable").asBoolean(true) && !retry.nonRetryable(error) && attempt < retry.maxAttempts();
        if (retryable) {
            Duration delay = retry.delay(Math.max(attempt, 1), random);
            Instant at = now.plus(delay);
            d.put("state", OjsState.RETRYABLE.wire());
            d.put("retry_delay_ms", delay.toMillis());
            d.put("next_attempt_at", format(at));
            return next(row, OjsState.RETRYABLE, at, null, null, d);
        }
        d.put("state", OjsState.DISCARDED.wire());
        d.put("completed_at", format(now));
        d.put("discarded_at", format(now));
        d.put("dead_letter", retry.onExhaustion().equals("dead_letter"));
        return next(row, OjsState.DISCARDED, null, null, null, d);
    }

    private static void requireHeld(OjsRow row, String workerId) {
        if (!row.state().equals(OjsState.ACTIVE.wire())) {
            throw OjsException.conflict("job " + row.id() + " is " + row.state() + ", not active");
        }
        if (workerId != null && row.workerId() != null && !workerId.equals(row.workerId())) {
            throw OjsException.conflict("job " + row.id() + " is reserved by another worker");
        }
    }

    /**
     * Extends the reservations of the jobs the worker reports holding and answers what the
     * worker should do: run, quiet (take no new jobs) or terminate.
     */
    ObjectNode heartbeat(String workerId, List<String> activeJobs, Duration visibility) {
        sweep();
        Instant now = now();
        String directive = "running";
        ArrayNode extended = JsonNodeFactory.instance.arrayNode();
        for (String id : activeJobs) {
            for (int i = 0; i < CAS_TRIES; i++) {
                Optional<OjsRow> found = store.findJob(id);
                if (found.isEmpty() || !found.get().state().equals(OjsState.ACTIVE.wire())) break;
                OjsRow row = found.get();
                if (workerId != null && row.workerId() != null && !workerId.equals(row.workerId())) break;
                ObjectNode doc = read(row.document());
                String d = doc.path("metadata").path("test_directive").asText("");
                if (d.equals("terminate") || (d.equals("quiet") && !directive.equals("terminate"))) directive = d;
                Duration vis = Duration.ofMillis(doc.path("reserved_visibility_ms").asLong(visibility.toMillis()));
                if (store.updateJob(next(row, OjsState.ACTIVE, null, deadline(doc, now, vis), row.workerId(), doc), now)) {
                    extended.add(id);
                    break;
                }
            }
        }
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("state", directive);
        answer.set("jobs_extended", extended);
        answer.put("server_time", format(now));
        return answer;
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
        Instant now = now();
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("worker_id", id.asText());
        doc.put("state", state);
        doc.set("active_jobs", body.path("active_jobs").isMissingNode() ? JsonNodeFactory.instance.nullNode() : body.get("active_jobs"));
        if (body.has("shutdown")) doc.set("shutdown", body.get("shutdown"));
        doc.put("last_beat_at", format(now));
        store.putWorker(new OjsWorker(id.asText(), state, now, write(doc)));
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("acknowledged", true);
        answer.put("worker_id", id.asText());
        answer.put("state", state);
        // A beat is a heartbeat too (seed 002): the jobs it names keep their leases, a draining worker's included.
        JsonNode named = body.path("active_job_ids").isArray() ? body.get("active_job_ids") : body.path("active_jobs");
        if (named.isArray()) {
            List<String> ids = new ArrayList<>();
            named.forEach(j -> ids.add(j.asText()));
            answer.set("jobs_extended", heartbeat(id.asText(), ids, DEFAULT_VISIBILITY).get("jobs_extended"));
        }
        answer.put("server_time", format(now));
        return answer;
    }

    /** The worker as its last beat described it. */
    ObjectNode worker(String id) {
        OjsWorker w = store.findWorker(id).orElseThrow(() -> OjsException.notFound("worker " + id));
        ObjectNode doc = read(w.document());
        doc.put("status", STOPPING.contains(w.state()) ? "degraded" : "ok");
        return doc;
    }

    // ---- dead letter ------------------------------------------------------------------------

    List<ObjectNode> deadLetter(int limit) {
        sweep();
        return store.jobsInStates(List.of(OjsState.DISCARDED.wire()), limit).stream().map(OjsJobs::document).toList();
    }

    ObjectNode retryDeadLetter(String id) {
        sweep();
        return change(id, (row, d) -> {
            if (!row.state().equals(OjsState.DISCARDED.wire())) throw OjsException.notFound("dead letter job " + id);
            Instant now = now();
            d.put("state", OjsState.AVAILABLE.wire());
            d.put("attempt", 0);
            d.put("enqueued_at", format(now));
            for (String f : List.of("error", "completed_at", "discarded_at", "next_attempt_at", "dead_letter", "discard_reason")) d.remove(f);
            return next(row, OjsState.AVAILABLE, null, null, null, d);
        }, "job.enqueued");
    }

    void discardDeadLetter(String id) {
        for (int i = 0; i < CAS_TRIES; i++) {
            OjsRow row = store.findJob(id).orElseThrow(() -> OjsException.notFound("dead letter job " + id));
            if (!row.state().equals(OjsState.DISCARDED.wire())) throw OjsException.notFound("dead letter job " + id);
            if (store.deleteJob(id, row.version())) return;
        }
        throw OjsException.conflict("job " + id + " kept changing; try again");
    }

    // ---- queues and events --------------------------------------------------------------------

    Map<String, Map<String, Long>> counts() {
        sweep();
        return store.counts();
    }

    Set<String> paused() {
        return store.pausedQueues();
    }

    void pause(String queue, boolean paused) {
        store.setQueuePaused(queue, paused);
    }

    List<OjsEvent> events(Collection<String> types, Collection<String> queues, int limit) {
        return store.events(types, queues, limit);
    }

    // ---- cron ---------------------------------------------------------------------------------

    /** Registers (or replaces) a schedule; the template is validated like a push, nothing is written if it is refused. */
    ObjectNode putCron(JsonNode body) {
        Instant now = now();
        String name = body.path("name").asText("");
        if (!OjsEnvelope.QUEUE.matcher(name).matches()) throw OjsException.invalid("name must be lowercase letters, digits, '.', '-' or '_'");
        if (!body.path("expression").isTextual()) throw OjsException.invalid("expression is required");
        String expression = body.get("expression").asText();
        String timezone = body.path("timezone").asText("UTC");
        CronExpression cron;
        ZoneId zone;
        try {
            cron = CronExpression.parse(expression);
            zone = CronExpression.zone(timezone);
        } catch (IllegalArgumentException e) {
            throw OjsException.invalid("invalid cron expression: " + e.getMessage());
        }
        JsonNode template = body.get("job_template");
        OjsEnvelope.parse(template, now);
        String overlap = body.path("overlap_policy").asText("allow");
        if (!overlap.equals("allow") && !overlap.equals("skip")) throw OjsException.invalid("overlap_policy must be allow or skip");
        Instant next = cron.next(now, zone);
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("name", name);
        doc.put("expression", expression);
        doc.put("timezone", timezone);
        doc.put("overlap_policy", overlap);
        doc.put("enabled", body.path("enabled").asBoolean(true));
        doc.set("job_template", template);
        doc.put("created_at", format(now));
        doc.put("next_run_at", format(next));
        store.putCron(new OjsCron(name, next, 0, write(doc)), now);
        return doc;
    }

    List<ObjectNode> crons() {
        sweep();
        return store.crons().stream().map(c -> read(c.document())).toList();
    }

    ObjectNode deleteCron(String name) {
        OjsCron cron = store.crons().stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> OjsException.notFound("cron " + name));
        if (!store.deleteCron(name)) throw OjsException.notFound("cron " + name);
        return read(cron.document());
    }

    /**
     * Fires every schedule whose time has come, once (runs missed while no request came are
     * folded into one): the compare-and-set of next_run decides which request or node enqueues.
     */
    private void fireCrons(Instant now) {
        for (OjsCron cron : store.crons()) {
            if (cron.nextRun().isAfter(now)) continue;
            ObjectNode doc = read(cron.document());
            Instant next = CronExpression.parse(doc.get("expression").asText()).next(now, CronExpression.zone(doc.get("timezone").asText()));
            doc.put("next_run_at", format(next));
            doc.put("last_run_at", format(now));
            boolean fire = doc.path("enabled").asBoolean(true);
            if (fire && doc.path("overlap_policy").asText().equals("skip") && doc.hasNonNull("last_job_id")) {
                // skip: the previous run's job has not finished yet
                boolean running = store.findJob(doc.get("last_job_id").asText()).map(r -> !state(r).terminal()).orElse(false);
                fire = !running;
            }
            String jobId = fire ? ids.next() : null;
            if (jobId != null) doc.put("last_job_id", jobId);
            if (!store.updateCron(new OjsCron(cron.name(), next, cron.version(), write(doc)))) continue;
            if (jobId != null) {
                ObjectNode template = doc.get("job_template").deepCopy();
                template.put("id", jobId);
                push(List.of(template));
            }
        }
    }

    /** Unique-key lock rows not pushed for this long are dropped (a push makes its key's row again). */
    private static final Duration UNIQUE_KEY_IDLE = Duration.ofHours(1);

    /** Forgets the lock rows of unique keys nobody pushed for an hour, so that ojs_unique does not grow without end. */
    int pruneUniqueKeys() {
        return store.pruneUniqueKeys(now().minus(UNIQUE_KEY_IDLE));
    }

    // ---- the sweep --------------------------------------------------------------------------

    /**
     * Waiting jobs whose time has come become available; active jobs past their deadline either
     * fail (the execution timeout: the retry policy decides) or, when only the visibility timeout
     * passed (the worker went quiet), return to available for another worker.
     */
    void sweep() {
        Instant now = now();
        fireCrons(now);
        for (OjsRow row : store.dueJobs(now, 100)) {
            ObjectNode doc = read(row.document());
            OjsState state = state(row);
            OjsRow next;
            if (state == OjsState.SCHEDULED || state == OjsState.RETRYABLE) {
                doc.put("state", OjsState.AVAILABLE.wire());
                doc.put("enqueued_at", format(now));
                next = next(row, OjsState.AVAILABLE, null, null, null, doc);
            } else if (state == OjsState.ACTIVE) {
                boolean timedOut = doc.has("timeout_ms") && doc.has("started_at")
                        && !Instant.parse(doc.get("started_at").asText()).plusMillis(doc.get("timeout_ms").asLong()).isAfter(now);
                if (timedOut) {
                    ObjectNode error = JsonNodeFactory.instance.objectNode();
                    error.put("code", "timeout");
                    error.put("type", "timeout");
                    error.put("message", "the job ran longer than its timeout_ms of " + doc.get("timeout_ms").asLong() + " ms");
                    next = fail(row, doc, error, now);
                } else {
                    doc.put("state", OjsState.AVAILABLE.wire());
                    doc.put("enqueued_at", format(now));
                    next = next(row, OjsState.AVAILABLE, null, null, null, doc);
                }
            } else {
                continue;
            }
            // Losing this compare-and-set means another request or node handled the job.
            if (store.updateJob(next, now)) {
                changed(eventFor(next), doc, now);
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------

    @FunctionalInterface
    interface Change {
        OjsRow apply(OjsRow row, ObjectNode doc);
    }

    /** Reads, decides and compare-and-sets, again if another change came first; returns the new document. */
    private ObjectNode change(String id, Change change, String eventType) {
        for (int i = 0; i < CAS_TRIES; i++) {
            OjsRow row = find(id);
            ObjectNode doc = read(row.document());
            OjsRow next = change.apply(row, doc);
            if (store.updateJob(next, now())) {
                changed(eventType != null ? eventType : eventFor(next), doc, now());
                return served(doc);
            }
        }
        throw OjsException.conflict("job " + id + " kept changing; try again");
    }

    private static String eventFor(OjsRow row) {
        return switch (OjsState.of(row.state())) {
            case AVAILABLE -> "job.enqueued";
            case RETRYABLE -> "job.retrying";
            case DISCARDED -> "job.discarded";
            case COMPLETED -> "job.completed";
            case CANCELLED -> "job.cancelled";
            case ACTIVE -> "job.started";
            default -> "job." + row.state();
        };
    }

    private void event(String type, ObjectNode doc, Instant now) {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.put("job_id", doc.path("id").asText());
        data.put("job_type", doc.path("type").asText());
        data.put("queue", doc.path("queue").asText());
        data.put("attempt", doc.path("attempt").asInt());
        data.put("state", doc.path("state").asText());
        if (type.equals("job.completed") && doc.has("started_at")) {
            data.put("duration_ms", Duration.between(Instant.parse(doc.get("started_at").asText()), now).toMillis());
        }
        if (doc.has("error")) data.set("error", doc.get("error"));
        store.appendEvent(type, doc.path("queue").asText(), doc.path("id").asText(), write(data), now);
    }

    private static OjsRow next(OjsRow row, OjsState state, Instant runAt, Instant deadline, String worker, ObjectNode doc) {
        return new OjsRow(row.seq(), row.id(), row.queue(), state.wire(), row.priority(), runAt, deadline, worker, row.version(), write(doc));
    }

    private static OjsState state(OjsRow row) {
        return OjsState.of(row.state());
    }

    /** The document as served: internal bookkeeping removed. */
    static ObjectNode document(OjsRow row) {
        return served(read(row.document()));
    }

    static ObjectNode served(ObjectNode doc) {
        ObjectNode copy = doc.deepCopy();
        copy.remove("reserved_visibility_ms");
        return copy;
    }

    static ObjectNode read(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored OJS job is not JSON", e);
        }
    }

    static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
