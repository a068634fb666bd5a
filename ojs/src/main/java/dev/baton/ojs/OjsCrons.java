package dev.baton.ojs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.core.schedule.CronExpression;
import dev.baton.store.OjsCron;
import dev.baton.store.OjsStore;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

/**
 * Cron schedules ({@code /ojs/v1/cron}): registered, listed, deleted, and fired by the sweep,
 * each firing a push of the schedule's job template.
 */
final class OjsCrons {
    private final OjsStore store;
    private final Clock clock;
    private final UuidV7 ids;
    private final OjsPush push;

    OjsCrons(OjsStore store, Clock clock, UuidV7 ids, OjsPush push) {
        this.store = store;
        this.clock = clock;
        this.ids = ids;
        this.push = push;
    }

    /** Registers (or replaces) a schedule; the template is validated like a push, nothing is written if it is refused. */
    ObjectNode put(JsonNode body) {
        Instant now = clock.instant();
        String name = body.path("name").asText("");
        if (!OjsEnvelope.QUEUE.matcher(name).matches())
            throw OjsException.invalid("name must be lowercase letters, digits, '.', '-' or '_'");
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
        if (!overlap.equals("allow") && !overlap.equals("skip"))
            throw OjsException.invalid("overlap_policy must be allow or skip");
        Instant next = cron.next(now, zone);
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        doc.put("name", name);
        doc.put("expression", expression);
        doc.put("timezone", timezone);
        doc.put("overlap_policy", overlap);
        doc.put("enabled", body.path("enabled").asBoolean(true));
        doc.set("job_template", template);
        doc.put("created_at", OjsJson.format(now));
        doc.put("next_run_at", OjsJson.format(next));
        store.putCron(new OjsCron(name, next, 0, OjsJson.write(doc)), now);
        return doc;
    }

    List<ObjectNode> list() {
        return store.crons().stream().map(c -> OjsJson.read(c.document())).toList();
    }

    ObjectNode delete(String name) {
        OjsCron cron = store.crons().stream()
                .filter(c -> c.name().equals(name))
                .findFirst()
                .orElseThrow(() -> OjsException.notFound("cron " + name));
        if (!store.deleteCron(name)) throw OjsException.notFound("cron " + name);
        return OjsJson.read(cron.document());
    }

    /**
     * Fires every schedule whose time has come, once (runs missed while no request came are
     * folded into one): the compare-and-set of next_run decides which request or node enqueues.
     */
    void fire(Instant now) {
        for (OjsCron cron : store.crons()) {
            if (cron.nextRun().isAfter(now)) continue;
            ObjectNode doc = OjsJson.read(cron.document());
            Instant next = CronExpression.parse(doc.get("expression").asText())
                    .next(now, CronExpression.zone(doc.get("timezone").asText()));
            doc.put("next_run_at", OjsJson.format(next));
            doc.put("last_run_at", OjsJson.format(now));
            boolean fire = doc.path("enabled").asBoolean(true);
            if (fire && doc.path("overlap_policy").asText().equals("skip") && doc.hasNonNull("last_job_id")) {
                // skip: the previous run's job has not finished yet
                boolean running = store.findJob(doc.get("last_job_id").asText())
                        .map(r -> !OjsChanges.state(r).terminal())
                        .orElse(false);
                fire = !running;
            }
            String jobId = fire ? ids.next() : null;
            if (jobId != null) doc.put("last_job_id", jobId);
            if (!store.updateCron(new OjsCron(cron.name(), next, cron.version(), OjsJson.write(doc)))) continue;
            if (jobId != null) {
                ObjectNode template = doc.get("job_template").deepCopy();
                template.put("id", jobId);
                push.push(List.of(template));
            }
        }
    }
}
