package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.store.OjsRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;

/**
 * An attempt's outcome, from the worker that holds the job: ack completes it; nack requeues it,
 * or fails it, and a failure is retried after the retry policy's delay or discarded (the dead
 * letter) when the error is not retryable or the attempts are spent. The sweep fails a job past
 * its execution timeout the same way ({@link #fail}).
 */
final class OjsOutcomes {
    private final Clock clock;
    private final OjsChanges changes;
    private final SplittableRandom random = new SplittableRandom();

    OjsOutcomes(Clock clock, OjsChanges changes) {
        this.clock = clock;
        this.changes = changes;
    }

    ObjectNode ack(String id, String workerId, JsonNode result) {
        ObjectNode doc = changes.change(
                id,
                (row, d) -> {
                    requireHeld(row, workerId);
                    Instant now = clock.instant();
                    d.put("state", OjsState.COMPLETED.wire());
                    d.put("completed_at", OjsJson.format(now));
                    d.remove("error");
                    if (result != null && !result.isNull()) d.set("result", result);
                    return OjsChanges.next(row, OjsState.COMPLETED, null, null, row.workerId(), d);
                },
                "job.completed");
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("acknowledged", true);
        answer.put("id", id);
        answer.put("state", doc.get("state").asText());
        answer.set("completed_at", doc.get("completed_at"));
        answer.set("job", doc);
        return answer;
    }

    ObjectNode nack(String id, String workerId, JsonNode error, boolean requeue) {
        ObjectNode doc = changes.change(
                id,
                (row, d) -> {
                    requireHeld(row, workerId);
                    Instant now = clock.instant();
                    if (requeue) {
                        d.put("state", OjsState.AVAILABLE.wire());
                        d.put("enqueued_at", OjsJson.format(now));
                        return OjsChanges.next(row, OjsState.AVAILABLE, null, null, null, d);
                    }
                    return fail(
                            row,
                            d,
                            error == null || error.isNull() ? JsonNodeFactory.instance.objectNode() : error,
                            now);
                },
                null);
        ObjectNode answer = JsonNodeFactory.instance.objectNode();
        answer.put("id", id);
        for (String f : List.of(
                "state",
                "attempt",
                "max_attempts",
                "next_attempt_at",
                "retry_delay_ms",
                "discarded_at",
                "completed_at")) {
            if (doc.has(f)) answer.set(f, doc.get(f));
        }
        answer.set("job", doc);
        return answer;
    }

    /**
     * A failed attempt: recorded in the error history, then retried after the policy's delay,
     * or discarded (the dead letter) when the error is not retryable or attempts are spent.
     */
    OjsRow fail(OjsRow row, ObjectNode d, JsonNode error, Instant now) {
        int attempt = d.path("attempt").asInt();
        ObjectNode recorded = JsonNodeFactory.instance.objectNode();
        String code = error.path("code").asText("error");
        recorded.put("code", code);
        String type = error.hasNonNull("type")
                ? error.get("type").asText()
                : error.path("details").hasNonNull("error_class")
                        ? error.path("details").get("error_class").asText()
                        : code;
        recorded.put("type", type);
        recorded.put("message", error.path("message").asText(""));
        recorded.put("retryable", error.path("retryable").asBoolean(true));
        if (error.has("details")) recorded.set("details", error.get("details"));
        recorded.put("attempt", attempt);
        recorded.put("occurred_at", OjsJson.format(now));
        d.set("error", recorded);
        ArrayNode history =
                d.has("errors") && d.get("errors").isArray() ? (ArrayNode) d.get("errors") : d.putArray("errors");
        history.add(recorded.deepCopy());
        d.remove("next_attempt_at");
        OjsRetry retry = OjsRetry.parse(d.get("retry"));
        boolean retryable =
                error.path("retryable").asBoolean(true) && !retry.nonRetryable(error) && attempt < retry.maxAttempts();
        if (retryable) {
            Duration delay = retry.delay(Math.max(attempt, 1), random);
            Instant at = now.plus(delay);
            d.put("state", OjsState.RETRYABLE.wire());
            d.put("retry_delay_ms", delay.toMillis());
            d.put("next_attempt_at", OjsJson.format(at));
            return OjsChanges.next(row, OjsState.RETRYABLE, at, null, null, d);
        }
        d.put("state", OjsState.DISCARDED.wire());
        d.put("completed_at", OjsJson.format(now));
        d.put("discarded_at", OjsJson.format(now));
        d.put("dead_letter", retry.onExhaustion().equals("dead_letter"));
        return OjsChanges.next(row, OjsState.DISCARDED, null, null, null, d);
    }

    /** Only the reserving worker may ack or nack, and only an active job. */
    private static void requireHeld(OjsRow row, String workerId) {
        if (!row.state().equals(OjsState.ACTIVE.wire())) {
            throw OjsException.conflict("job " + row.id() + " is " + row.state() + ", not active");
        }
        if (workerId != null && row.workerId() != null && !workerId.equals(row.workerId())) {
            throw OjsException.conflict("job " + row.id() + " is reserved by another worker");
        }
    }
}
