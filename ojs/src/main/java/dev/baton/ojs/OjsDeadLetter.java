package dev.baton.ojs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/** The dead letter: discarded jobs, listed, put back to {@code available} with attempt 0, or deleted. */
final class OjsDeadLetter {
    private final OjsStore store;
    private final Clock clock;
    private final OjsChanges changes;

    OjsDeadLetter(OjsStore store, Clock clock, OjsChanges changes) {
        this.store = store;
        this.clock = clock;
        this.changes = changes;
    }

    List<ObjectNode> list(int limit) {
        return store.jobsInStates(List.of(OjsState.DISCARDED.wire()), limit).stream()
                .map(OjsJson::document)
                .toList();
    }

    ObjectNode retry(String id) {
        return changes.change(
                id,
                (row, d) -> {
                    if (!row.state().equals(OjsState.DISCARDED.wire()))
                        throw OjsException.notFound("dead letter job " + id);
                    Instant now = clock.instant();
                    d.put("state", OjsState.AVAILABLE.wire());
                    d.put("attempt", 0);
                    d.put("enqueued_at", OjsJson.format(now));
                    for (String f : List.of(
                            "error",
                            "completed_at",
                            "discarded_at",
                            "next_attempt_at",
                            "dead_letter",
                            "discard_reason")) d.remove(f);
                    return OjsChanges.next(row, OjsState.AVAILABLE, null, null, null, d);
                },
                "job.enqueued");
    }

    /** Deletes the discarded job (a compare-and-set on its version, like every change). */
    void discard(String id) {
        for (int i = 0; i < OjsChanges.CAS_TRIES; i++) {
            OjsRow row = store.findJob(id).orElseThrow(() -> OjsException.notFound("dead letter job " + id));
            if (!row.state().equals(OjsState.DISCARDED.wire())) throw OjsException.notFound("dead letter job " + id);
            if (store.deleteJob(id, row.version())) return;
        }
        throw OjsException.conflict("job " + id + " kept changing; try again");
    }
}
