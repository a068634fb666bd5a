package dev.baton.ojs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How a job's change is written, whichever transition makes it: the compare-and-set on the
 * job's version (the loser re-reads and decides again), then the change's event and, when a
 * workflow job finished, its workflow's advance. Every path that moves a job to a new state
 * after it was enqueued ends in {@link #changed}.
 */
final class OjsChanges {
    /** Compare-and-set rounds before a request gives up with 409 (the job kept changing under it). */
    static final int CAS_TRIES = 20;

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OjsChanges.class);

    private final OjsStore store;
    private final Clock clock;
    private final OjsWorkflows workflows;

    OjsChanges(OjsStore store, Clock clock, OjsWorkflows workflows) {
        this.store = store;
        this.clock = clock;
        this.workflows = workflows;
    }

    /** A transition's decision: the job's next row, from its current row and (changed in place) document. */
    @FunctionalInterface
    interface Change {
        OjsRow apply(OjsRow row, ObjectNode doc);
    }

    /**
     * Reads, decides and compare-and-sets, again if another change came first; returns the new
     * document as served. {@code eventType} null: the event follows from the new state.
     */
    ObjectNode change(String id, Change change, String eventType) {
        for (int i = 0; i < CAS_TRIES; i++) {
            OjsRow row = find(id);
            ObjectNode doc = OjsJson.read(row.document());
            OjsRow next = change.apply(row, doc);
            if (store.updateJob(next, clock.instant())) {
                changed(eventType != null ? eventType : eventFor(next), doc, clock.instant());
                return OjsJson.served(doc);
            }
        }
        throw OjsException.conflict("job " + id + " kept changing; try again");
    }

    OjsRow find(String id) {
        return store.findJob(id).orElseThrow(() -> OjsException.notFound("job " + id));
    }

    /**
     * A job's change is committed: its event is appended and, when a workflow job finished, its
     * workflow advances (the job's change stands even if the advance fails: the background sweep
     * repeats it).
     */
    void changed(String eventType, ObjectNode doc, Instant now) {
        event(eventType, doc, now);
        if (!doc.hasNonNull("workflow_id")
                || !OjsState.of(doc.path("state").asText()).terminal()) return;
        try {
            workflows.advance(doc.get("workflow_id").asText());
        } catch (RuntimeException e) {
            LOG.warn(
                    "advancing OJS workflow {} failed; the sweep tries again: {}",
                    doc.get("workflow_id").asText(),
                    e.toString());
        }
    }

    static String eventFor(OjsRow row) {
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

    /** Appends the job's event to the event log ({@code GET /ojs/v1/events}). */
    void event(String type, ObjectNode doc, Instant now) {
        ObjectNode data = JsonNodeFactory.instance.objectNode();
        data.put("job_id", doc.path("id").asText());
        data.put("job_type", doc.path("type").asText());
        data.put("queue", doc.path("queue").asText());
        data.put("attempt", doc.path("attempt").asInt());
        data.put("state", doc.path("state").asText());
        if (type.equals("job.completed") && doc.has("started_at")) {
            data.put(
                    "duration_ms",
                    Duration.between(Instant.parse(doc.get("started_at").asText()), now)
                            .toMillis());
        }
        if (doc.has("error")) data.set("error", doc.get("error"));
        store.appendEvent(type, doc.path("queue").asText(), doc.path("id").asText(), OjsJson.write(data), now);
    }

    /** The job's row in its next state, at the version read (the compare-and-set's expectation). */
    static OjsRow next(OjsRow row, OjsState state, Instant runAt, Instant deadline, String worker, ObjectNode doc) {
        return new OjsRow(
                row.seq(),
                row.id(),
                row.queue(),
                state.wire(),
                row.priority(),
                runAt,
                deadline,
                worker,
                row.version(),
                OjsJson.write(doc));
    }

    static OjsState state(OjsRow row) {
        return OjsState.of(row.state());
    }
}
