package dev.baton.ojs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import java.time.Clock;
import java.time.Instant;

/**
 * The sweep, run before most requests read (see {@link OjsJobs}) and on the binding's timer:
 * due cron schedules fire; waiting jobs whose time has come become available; active jobs past
 * their deadline either fail (the execution timeout: the retry policy decides) or, when only the
 * visibility timeout passed (the worker went quiet), return to available for another worker;
 * registered workers silent past their heartbeat timeout are terminated ({@link OjsDeadWorkers}).
 * Each is a compare-and-set, so requests and nodes sweeping at once never act twice.
 */
final class OjsSweep {
    private final OjsStore store;
    private final Clock clock;
    private final OjsChanges changes;
    private final OjsOutcomes outcomes;
    private final OjsCrons crons;
    private final OjsDeadWorkers deadWorkers;

    OjsSweep(OjsStore store, Clock clock, OjsChanges changes, OjsOutcomes outcomes, OjsCrons crons) {
        this.store = store;
        this.clock = clock;
        this.changes = changes;
        this.outcomes = outcomes;
        this.crons = crons;
        this.deadWorkers = new OjsDeadWorkers(store, changes);
    }

    void sweep() {
        Instant now = clock.instant();
        crons.fire(now);
        deadWorkers.reap(now);
        for (OjsRow row : store.dueJobs(now, 100)) {
            ObjectNode doc = OjsJson.read(row.document());
            OjsState state = OjsChanges.state(row);
            OjsRow next;
            if (state == OjsState.SCHEDULED || state == OjsState.RETRYABLE) {
                doc.put("state", OjsState.AVAILABLE.wire());
                doc.put("enqueued_at", OjsJson.format(now));
                next = OjsChanges.next(row, OjsState.AVAILABLE, null, null, null, doc);
            } else if (state == OjsState.ACTIVE) {
                boolean timedOut = doc.has("timeout_ms")
                        && doc.has("started_at")
                        && !Instant.parse(doc.get("started_at").asText())
                                .plusMillis(doc.get("timeout_ms").asLong())
                                .isAfter(now);
                if (timedOut) {
                    ObjectNode error = JsonNodeFactory.instance.objectNode();
                    error.put("code", "timeout");
                    error.put("type", "timeout");
                    error.put(
                            "message",
                            "the job ran longer than its timeout_ms of "
                                    + doc.get("timeout_ms").asLong() + " ms");
                    next = outcomes.fail(row, doc, error, now);
                } else {
                    doc.put("state", OjsState.AVAILABLE.wire());
                    doc.put("enqueued_at", OjsJson.format(now));
                    next = OjsChanges.next(row, OjsState.AVAILABLE, null, null, null, doc);
                }
            } else {
                continue;
            }
            // Losing this compare-and-set means another request or node handled the job.
            if (store.updateJob(next, now)) {
                changes.changed(OjsChanges.eventFor(next), doc, now);
            }
        }
    }
}
