package dev.baton.ojs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Instant;

/** Cancel ({@code DELETE /ojs/v1/jobs/{id}}): a job in any state that is not terminal becomes {@code cancelled}. */
final class OjsCancellation {
    private final Clock clock;
    private final OjsChanges changes;

    OjsCancellation(Clock clock, OjsChanges changes) {
        this.clock = clock;
        this.changes = changes;
    }

    ObjectNode cancel(String id) {
        return changes.change(
                id,
                (row, doc) -> {
                    if (OjsChanges.state(row).terminal())
                        throw OjsException.conflict("job " + id + " is " + row.state() + "; it cannot be cancelled");
                    Instant now = clock.instant();
                    doc.put("state", OjsState.CANCELLED.wire());
                    doc.put("cancelled_at", OjsJson.format(now));
                    return OjsChanges.next(row, OjsState.CANCELLED, null, null, row.workerId(), doc);
                },
                "job.cancelled");
    }
}
