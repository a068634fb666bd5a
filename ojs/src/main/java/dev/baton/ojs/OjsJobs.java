package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsEvent;
import dev.baton.store.OjsStore;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The OJS door: everything {@link OjsRoutes} asks of the OJS jobs, over Baton's store. Each
 * transition lives in a class of its own, and this one shows which operations sweep first
 * ({@link OjsSweep}: due crons, waiting jobs whose time came, expired leases), so that every read
 * sees the jobs as they are by the injected clock:
 *
 * <ul>
 *   <li>{@link OjsPush}: push and batch push, unique policies, rate limits;</li>
 *   <li>{@link OjsReservations}: fetch (available to active) and heartbeat (the lease extended);</li>
 *   <li>{@link OjsOutcomes}: ack and nack, retry or discard by the retry policy;</li>
 *   <li>{@link OjsCancellation}, {@link OjsDeadLetter}: cancel a job; retry or delete a discarded one;</li>
 *   <li>{@link OjsCrons}: schedules, fired by the sweep; {@link OjsWorkers}: beats and worker health;</li>
 *   <li>{@link OjsWorkflows}: chains, groups and batches, advanced when one of their jobs finishes.</li>
 * </ul>
 *
 * Every change to a job is a compare-and-set on its version, written through {@link OjsChanges},
 * so concurrent requests (and other server nodes on the same database) never both reserve, ack
 * or fail one job: the loser re-reads and decides again.
 */
final class OjsJobs {
    private final OjsStore store;
    private final Clock clock;
    private final OjsWorkflows workflows;
    private final OjsChanges changes;
    private final OjsPush push;
    private final OjsReservations reservations;
    private final OjsOutcomes outcomes;
    private final OjsCancellation cancellation;
    private final OjsDeadLetter deadLetter;
    private final OjsCrons crons;
    private final OjsSweep sweep;
    private final OjsWorkers workers;

    OjsJobs(Store store, Clock clock) {
        this.store = store.ojs();
        this.clock = clock;
        UuidV7 ids = new UuidV7(clock);
        this.workflows = new OjsWorkflows(this.store, this, ids);
        this.changes = new OjsChanges(this.store, clock, workflows);
        this.push = new OjsPush(this.store, clock, ids, changes);
        this.reservations = new OjsReservations(this.store, clock, changes);
        this.outcomes = new OjsOutcomes(clock, changes);
        this.cancellation = new OjsCancellation(clock, changes);
        this.deadLetter = new OjsDeadLetter(this.store, clock, changes);
        this.crons = new OjsCrons(this.store, clock, ids, push);
        this.sweep = new OjsSweep(this.store, clock, changes, outcomes, crons);
        this.workers = new OjsWorkers(this.store, clock, sweep, reservations);
    }

    OjsWorkflows workflows() {
        return workflows;
    }

    Instant now() {
        return clock.instant();
    }

    /** See {@link OjsSweep}; the binding's timer runs it too. */
    void sweep() {
        sweep.sweep();
    }

    // ---- jobs -------------------------------------------------------------------------------

    List<OjsPush.Pushed> push(List<JsonNode> bodies) {
        return push.push(bodies);
    }

    /** A workflow's job, ready for the workflow's own transaction. */
    OjsPush.Prepared prepare(OjsEnvelope.Parsed p, Instant now, ObjectNode extra) {
        return push.prepare(p, now, extra);
    }

    /** A workflow's job was inserted with its workflow: its {@code job.enqueued} event. */
    void enqueued(ObjectNode doc, Instant now) {
        changes.event("job.enqueued", doc, now);
    }

    ObjectNode info(String id) {
        sweep();
        return OjsJson.document(changes.find(id));
    }

    ObjectNode cancel(String id) {
        sweep();
        return cancellation.cancel(id);
    }

    /** Cancels the job unless it has finished (a cancelled workflow's jobs); a job that keeps changing is left to finish. */
    void cancelIfRunning(String id) {
        try {
            cancel(id);
        } catch (OjsException e) {
            // finished (409), gone (404) or changing under us: nothing left to cancel
        }
    }

    /** Forgets unique keys nobody pushed for an hour (the binding's timer, about once a minute). */
    int pruneUniqueKeys() {
        return push.pruneUniqueKeys();
    }

    // ---- workers ----------------------------------------------------------------------------

    List<ObjectNode> fetch(List<String> queues, int count, String workerId, Duration visibility) {
        sweep();
        workers.requireAlive(workerId);
        return reservations.fetch(queues, count, workerId, visibility);
    }

    ObjectNode ack(String id, String workerId, JsonNode result) {
        sweep();
        workers.requireAlive(workerId);
        return outcomes.ack(id, workerId, result);
    }

    ObjectNode nack(String id, String workerId, JsonNode error, boolean requeue) {
        sweep();
        return outcomes.nack(id, workerId, error, requeue);
    }

    /** Extends the named jobs' reservations; the answer's state is the strongest of the directed ones (issue 47). */
    ObjectNode heartbeat(String workerId, String reportedState, List<String> activeJobs, Duration visibility) {
        sweep();
        String directed = workers.heartbeat(workerId, reportedState, activeJobs);
        ObjectNode answer = reservations.heartbeat(workerId, activeJobs, visibility);
        answer.put("state", OjsWorkers.stronger(answer.path("state").asText(), directed));
        return answer;
    }

    ObjectNode register(JsonNode body) {
        sweep();
        return workers.register(body);
    }

    List<ObjectNode> workers() {
        sweep();
        return workers.list();
    }

    ObjectNode workerView(String id) {
        sweep();
        return workers.view(id);
    }

    ObjectNode direct(String id, String state) {
        sweep();
        return workers.direct(id, state);
    }

    List<String> directQueue(String queue, String state) {
        sweep();
        return workers.directQueue(queue, state);
    }

    /** Records the beat first; it sweeps only when it names jobs to extend (as a heartbeat). */
    ObjectNode beat(JsonNode body) {
        return workers.beat(body);
    }

    ObjectNode worker(String id) {
        return workers.worker(id);
    }

    // ---- dead letter ------------------------------------------------------------------------

    List<ObjectNode> deadLetter(int limit) {
        sweep();
        return deadLetter.list(limit);
    }

    ObjectNode retryDeadLetter(String id) {
        sweep();
        return deadLetter.retry(id);
    }

    void discardDeadLetter(String id) {
        deadLetter.discard(id);
    }

    // ---- queues and events ------------------------------------------------------------------

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

    // ---- cron -------------------------------------------------------------------------------

    ObjectNode putCron(JsonNode body) {
        return crons.put(body);
    }

    List<ObjectNode> crons() {
        sweep();
        return crons.list();
    }

    ObjectNode deleteCron(String name) {
        return crons.delete(name);
    }
}
