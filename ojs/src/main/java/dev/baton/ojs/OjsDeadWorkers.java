package dev.baton.ojs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import dev.baton.store.OjsWorker;
import java.time.Instant;

/**
 * Dead-worker recovery (seed 002, issue 47): a registered worker silent for its heartbeat
 * timeout is marked {@code terminated} and its reserved jobs return to {@code available} at
 * once, not at their visibility expiry. The attempt the reservation counted stays counted.
 * Both steps are compare-and-sets, so nodes sweeping at once act once.
 */
final class OjsDeadWorkers {
    private final OjsStore store;
    private final OjsChanges changes;

    OjsDeadWorkers(OjsStore store, OjsChanges changes) {
        this.store = store;
        this.changes = changes;
    }

    void reap(Instant now) {
        for (OjsWorker silent : store.silentWorkers(now)) {
            ObjectNode doc = OjsJson.read(silent.document());
            doc.put("state", "terminated");
            doc.put("terminated_at", OjsJson.format(now));
            doc.put("terminated_reason", "heartbeat_timeout");
            // A beat that came in since the read wins: the worker is alive after all.
            if (!store.terminateWorker(silent, OjsJson.write(doc))) continue;
            for (OjsRow row : store.jobsOfWorker(silent.id(), OjsState.ACTIVE.wire())) release(row, now);
        }
    }

    private void release(OjsRow row, Instant now) {
        ObjectNode doc = OjsJson.read(row.document());
        doc.put("state", OjsState.AVAILABLE.wire());
        doc.put("enqueued_at", OjsJson.format(now));
        doc.remove("worker_id");
        OjsRow next = OjsChanges.next(row, OjsState.AVAILABLE, null, null, null, doc);
        // Losing this compare-and-set means the job moved meanwhile (acked, failed, taken back by another node).
        if (store.updateJob(next, now)) changes.changed(OjsChanges.eventFor(next), doc, now);
    }
}
