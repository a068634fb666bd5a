package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import dev.baton.store.OjsUnique;
import dev.baton.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * Push: a job (or a batch) enters as {@code available}, or {@code scheduled} for a later time,
 * under its unique policy ({@code reject}, {@code ignore} or {@code replace} a duplicate) and
 * with its queue's rate limit written in the job's own transaction.
 */
final class OjsPush {
    /** Unique-key lock rows not pushed for this long are dropped (a push makes its key's row again). */
    private static final Duration UNIQUE_KEY_IDLE = Duration.ofHours(1);

    private final OjsStore store;
    private final Clock clock;
    private final UuidV7 ids;
    private final OjsChanges changes;

    OjsPush(OjsStore store, Clock clock, UuidV7 ids, OjsChanges changes) {
        this.store = store;
        this.clock = clock;
        this.ids = ids;
        this.changes = changes;
    }

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
        Instant now = clock.instant();
        List<OjsEnvelope.Parsed> parsed =
                bodies.stream().map(b -> OjsEnvelope.parse(b, now)).toList();
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
            if (p.id() != null && !batchIds.add(p.id()))
                throw OjsException.duplicate("the batch names id " + p.id() + " twice");
            if (p.id() != null && store.findJob(p.id()).isPresent())
                throw OjsException.duplicate("a job with id " + p.id() + " exists");
            if (p.unique() != null && p.unique().onConflict().equals("reject")) {
                OjsUnique u = unique(p, now, null);
                if (!batchKeys.add(u.key()) || store.uniqueConflict(u).isPresent()) throw duplicateKey(p);
            }
        }
    }

    private static OjsException duplicateKey(OjsEnvelope.Parsed p) {
        return OjsException.duplicate("a job of type " + p.type() + " with the same unique key ("
                + String.join(", ", p.unique().keys()) + ") is in one of the states "
                + p.unique().states()
                + (p.unique().period() != null ? " within " + p.unique().period() : ""));
    }

    private OjsUnique unique(OjsEnvelope.Parsed p, Instant now, UnaryOperator<OjsRow> replace) {
        OjsUniquePolicy u = p.unique();
        return new OjsUnique(
                u.key(p.document()), u.states(), u.period() == null ? null : now.minus(u.period()), replace);
    }

    /** A job ready to insert: its row and its document. */
    record Prepared(OjsRow row, ObjectNode doc) {}

    /** Gives the parsed job its id, state and times; {@code extra} fields (a workflow's) are added to the document. */
    Prepared prepare(OjsEnvelope.Parsed p, Instant now, ObjectNode extra) {
        String id = p.id() != null ? p.id() : ids.next();
        ObjectNode doc = p.document().deepCopy();
        doc.put("id", id);
        doc.put("created_at", OjsJson.format(now));
        boolean later = p.scheduledAt() != null && p.scheduledAt().isAfter(now);
        OjsState state = later ? OjsState.SCHEDULED : OjsState.AVAILABLE;
        doc.put("state", state.wire());
        if (!later) doc.put("enqueued_at", OjsJson.format(now));
        if (extra != null) doc.setAll(extra);
        return new Prepared(
                OjsRow.fresh(
                        id, p.queue(), state.wire(), p.priority(), later ? p.scheduledAt() : null, OjsJson.write(doc)),
                doc);
    }

    private Pushed insert(OjsEnvelope.Parsed p, Instant now) {
        Prepared job = prepare(p, now, null);
        String id = job.row().id();
        OjsStore.RateLimit rate = p.rateLimit() == null ? null : p.rateLimit().stored();
        if (p.unique() == null) {
            if (!store.insertJob(job.row(), rate, now)) throw OjsException.duplicate("a job with id " + id + " exists");
            changes.event("job.enqueued", job.doc(), now);
            return new Pushed(job.doc(), true);
        }
        boolean replace = p.unique().onConflict().equals("replace");
        for (int i = 0; i < OjsChanges.CAS_TRIES; i++) {
            Optional<OjsRow> conflict;
            // The job a replace cancelled, if it did: the store may run the transaction more than once, the last run
            // counts.
            AtomicReference<String> cancelled = new AtomicReference<>();
            try {
                conflict = store.insertUnique(
                        job.row(),
                        unique(
                                p,
                                now,
                                replace
                                        ? row -> {
                                            cancelled.set(row.id());
                                            return replaced(row, id, now);
                                        }
                                        : null),
                        rate,
                        now);
            } catch (StoreException e) {
                throw OjsException.duplicate(e.getMessage());
            }
            if (conflict.isEmpty()) {
                if (cancelled.get() != null) {
                    store.findJob(cancelled.get())
                            .map(r -> OjsJson.read(r.document()))
                            .filter(d -> id.equals(d.path("replaced_by").asText()))
                            .ifPresent(d -> changes.changed("job.cancelled", d, now));
                }
                changes.event("job.enqueued", job.doc(), now);
                return new Pushed(job.doc(), true);
            }
            if (p.unique().onConflict().equals("ignore")) return new Pushed(OjsJson.document(conflict.get()), false);
            if (!replace) throw duplicateKey(p);
            // replace: the conflicting job changed between the look and the cancel; look again
        }
        throw OjsException.conflict("the job with the same unique key kept changing; try again");
    }

    /** The cancelled version of a job a {@code replace} unique policy replaces (written by the store, with the new job). */
    private static OjsRow replaced(OjsRow row, String by, Instant now) {
        ObjectNode doc = OjsJson.read(row.document());
        doc.put("state", OjsState.CANCELLED.wire());
        doc.put("cancelled_at", OjsJson.format(now));
        doc.put("replaced_by", by);
        return OjsChanges.next(row, OjsState.CANCELLED, null, null, row.workerId(), doc);
    }

    /** Forgets the lock rows of unique keys nobody pushed for an hour, so that ojs_unique does not grow without end. */
    int pruneUniqueKeys() {
        return store.pruneUniqueKeys(clock.instant().minus(UNIQUE_KEY_IDLE));
    }
}
