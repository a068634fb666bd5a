package dev.baton.dispatch.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.id.JobUuid;
import java.util.ArrayList;
import java.util.List;

/**
 * What one node tells the others after a commit (PostgreSQL NOTIFY). Each is a wake-up or a
 * message for a runner's channel: the state it concerns is already in the store, so a lost event
 * delays work (until the fallback sweep) but never loses it. Attempts are named by number, never
 * by lease: leases are secrets and a payload may end up in the database's log.
 */
public sealed interface ClusterEvent {
    /** A job of this spec became claimable (submitted, declined, requeued, retried). */
    record Pending(long specId) implements ClusterEvent {}

    /** A job left flight: a tier limit it held may be lifted. */
    record Finished() implements ClusterEvent {}

    /**
     * Attempt number {@code attempt} is over by a deadline some node acted on: nodes drop it from
     * memory, and the one holding the runner's channel tells it {@code stale} with {@code reason}
     * when there is one.
     */
    record AttemptEnded(JobUuid job, int attempt, long runnerId, String reason) implements ClusterEvent {}

    /** The job was canceled while in flight: the runner's node pushes {@code cancel}. */
    record CancelRunner(JobUuid job, int attempt, long runnerId, String reason) implements ClusterEvent {}

    /** A server message for a runner (drain, update) as wire JSON, delivered by the node holding its channel. */
    record ToRunner(long runnerId, String message) implements ClusterEvent {}

    /** The sender has console watchers: send it your job and runner changes for a while ({@link ClusterChanges}). */
    record Watching() implements ClusterEvent {}

    /** Jobs and runners that changed on the sender, for the consoles of the nodes that are {@link Watching}. */
    record Changed(boolean runners, List<JobUuid> jobs) implements ClusterEvent {
        public Changed {
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * The sender changed which specs a runner serves, or a spec (archived, renamed, deleted):
     * nodes drop their cached runner spec sets and specs (docs/decisions/0018).
     */
    record SpecsChanged() implements ClusterEvent {}

    /** This node may have missed events (its listener reconnected): look at everything again. */
    record Resync() implements ClusterEvent {}

    ObjectMapper JSON = new ObjectMapper();

    /** The NOTIFY payload: {@code {"from":node,"type":…}} plus the event's fields. */
    static String encode(String from, ClusterEvent event) {
        ObjectNode o = JSON.createObjectNode().put("from", from);
        switch (event) {
            case Pending p -> o.put("type", "pending").put("spec", p.specId());
            case Finished f -> o.put("type", "finished");
            case AttemptEnded e ->
                o.put("type", "ended")
                        .put("job", e.job().toString())
                        .put("attempt", e.attempt())
                        .put("runner", e.runnerId())
                        .put("reason", e.reason());
            case CancelRunner c ->
                o.put("type", "cancel")
                        .put("job", c.job().toString())
                        .put("attempt", c.attempt())
                        .put("runner", c.runnerId())
                        .put("reason", c.reason());
            case ToRunner t ->
                o.put("type", "to_runner").put("runner", t.runnerId()).put("message", t.message());
            case Watching w -> o.put("type", "watching");
            case Changed c -> {
                o.put("type", "changed").put("runners", c.runners());
                var jobs = o.putArray("jobs");
                for (JobUuid j : c.jobs()) jobs.add(j.toString());
            }
            case SpecsChanged c -> o.put("type", "specs");
            case Resync r -> o.put("type", "resync");
        }
        return o.toString();
    }

    /** The sender and event of a payload; null for one this version does not know. */
    static Received decode(String payload) {
        try {
            JsonNode o = JSON.readTree(payload);
            String from = o.path("from").asText();
            ClusterEvent event = switch (o.path("type").asText()) {
                case "pending" -> new Pending(o.path("spec").asLong());
                case "finished" -> new Finished();
                case "ended" ->
                    new AttemptEnded(
                            JobUuid.parse(o.path("job").asText()),
                            o.path("attempt").asInt(),
                            o.path("runner").asLong(),
                            o.path("reason").isNull() ? null : o.path("reason").asText(null));
                case "cancel" ->
                    new CancelRunner(
                            JobUuid.parse(o.path("job").asText()),
                            o.path("attempt").asInt(),
                            o.path("runner").asLong(),
                            o.path("reason").asText());
                case "to_runner" ->
                    new ToRunner(o.path("runner").asLong(), o.path("message").asText());
                case "watching" -> new Watching();
                case "changed" -> new Changed(o.path("runners").asBoolean(), jobs(o.path("jobs")));
                case "specs" -> new SpecsChanged();
                case "resync" -> new Resync();
                default -> null;
            };
            return event == null ? null : new Received(from, event);
        } catch (Exception e) {
            return null;
        }
    }

    private static List<JobUuid> jobs(JsonNode array) {
        List<JobUuid> jobs = new ArrayList<>();
        for (JsonNode j : array) jobs.add(JobUuid.parse(j.asText()));
        return jobs;
    }

    record Received(String from, ClusterEvent event) {}
}
