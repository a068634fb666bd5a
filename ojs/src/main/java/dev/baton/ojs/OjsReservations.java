package dev.baton.ojs;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import dev.baton.store.OjsStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Reservation: fetch moves {@code available} jobs to {@code active} under a lease (the row's
 * deadline), within paused queues, rate limits and a draining worker's wish; a heartbeat
 * extends the leases of the jobs a worker holds. An expired job met by a fetch is discarded.
 */
final class OjsReservations {
    /** Without visibility_timeout_ms from the job or the fetch: seed 002's default of 1800 s (issue 47). */
    static final Duration DEFAULT_VISIBILITY = Duration.ofMinutes(30);

    private final OjsStore store;
    private final Clock clock;
    private final OjsChanges changes;

    OjsReservations(OjsStore store, Clock clock, OjsChanges changes) {
        this.store = store;
        this.clock = clock;
        this.changes = changes;
    }

    /** Reserves up to {@code count} available jobs, queue by queue in the order given. */
    List<ObjectNode> fetch(List<String> queues, int count, String workerId, Duration visibility) {
        // A worker that said it is draining (or was told to stop) takes no new jobs.
        boolean stopping = workerId != null
                && store.findWorker(workerId)
                        .map(w -> OjsWorkers.STOPPING.contains(w.state()) || w.directive() != null)
                        .orElse(false);
        if (stopping) return List.of();
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
                    if (limited.contains(queue) && !store.takeRateSlot(queue, clock.instant())) {
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
        Instant now = clock.instant();
        ObjectNode doc = OjsJson.read(row.document());
        if (expired(doc, now)) {
            doc.put("state", OjsState.DISCARDED.wire());
            doc.put("discarded_at", OjsJson.format(now));
            doc.put("discard_reason", "expired");
            if (store.updateJob(OjsChanges.next(row, OjsState.DISCARDED, null, null, null, doc), now)) {
                changes.changed("job.discarded", doc, now);
            }
            return Optional.empty();
        }
        int attempt = doc.path("attempt").asInt() + 1;
        doc.put("state", OjsState.ACTIVE.wire());
        doc.put("attempt", attempt);
        doc.put("started_at", OjsJson.format(now));
        if (workerId != null) doc.put("worker_id", workerId);
        else doc.remove("worker_id");
        Duration vis = doc.has("visibility_timeout_ms")
                ? Duration.ofMillis(doc.get("visibility_timeout_ms").asLong())
                : visibility;
        doc.put("reserved_visibility_ms", vis.toMillis());
        OjsRow next = OjsChanges.next(row, OjsState.ACTIVE, null, deadline(doc, now, vis), workerId, doc);
        if (!store.updateJob(next, now)) return Optional.empty();
        changes.event("job.started", doc, now);
        return Optional.of(OjsJson.served(doc));
    }

    /** The reservation's end: the visibility deadline, or the execution timeout if that comes first. */
    private static Instant deadline(ObjectNode doc, Instant now, Duration visibility) {
        Instant d = now.plus(visibility);
        if (doc.has("timeout_ms") && doc.has("started_at")) {
            Instant timeout = Instant.parse(doc.get("started_at").asText())
                    .plusMillis(doc.get("timeout_ms").asLong());
            if (timeout.isBefore(d)) d = timeout;
        }
        return d;
    }

    private static boolean expired(ObjectNode doc, Instant now) {
        return doc.has("expires_at")
                && !Instant.parse(doc.get("expires_at").asText()).isAfter(now);
    }

    /**
     * Extends the reservations of the jobs the worker reports holding and answers what the
     * worker should do: run, quiet (take no new jobs) or terminate.
     */
    ObjectNode heartbeat(String workerId, List<String> activeJobs, Duration visibility) {
        Instant now = clock.instant();
        String directive = "running";
        ArrayNode extended = JsonNodeFactory.instance.arrayNode();
        for (String id : activeJobs) {
            for (int i = 0; i < OjsChanges.CAS_TRIES; i++) {
                Optional<OjsRow> found = store.findJob(id);
                if (found.isEmpty() || !found.get().state().equals(OjsState.ACTIVE.wire())) break;
                OjsRow row = found.get();
                if (workerId != null && row.workerId() != null && !workerId.equals(row.workerId())) break;
                ObjectNode doc = OjsJson.read(row.document());
                String d = doc.path("metadata").path("test_directive").asText("");
                if (d.equals("terminate") || (d.equals("quiet") && !directive.equals("terminate"))) directive = d;
                Duration vis =
                        Duration.ofMillis(doc.path("reserved_visibility_ms").asLong(visibility.toMillis()));
                if (store.updateJob(
                        OjsChanges.next(row, OjsState.ACTIVE, null, deadline(doc, now, vis), row.workerId(), doc),
                        now)) {
                    extended.add(id);
                    break;
                }
            }
        }
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("state", directive);
        answer.put("visibility_timeout", visibility.toSeconds());
        answer.set("jobs_extended", extended);
        answer.put("server_time", OjsJson.format(now));
        return answer;
    }
}
