package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The one-line description of a job in flight that {@code run --wait} keeps up to date. */
final class JobStatusText {
    private JobStatusText() {}

    /**
     * {@code pending · #2 in queue · starts in ~1m30s · 2 jobs are ahead on runners serving 'small'},
     * {@code claimed by box · preparing}, {@code running 1m05s · <last log line>}.
     */
    static String describe(JsonNode job, String runnerName, String lastLogLine, Instant now) {
        String status = job.path("status").asText("unknown");
        StringBuilder b = new StringBuilder(status);
        switch (status) {
            case "pending" -> {
                if (job.hasNonNull("queue_position"))
                    b.append(" · #").append(job.get("queue_position").asInt()).append(" in queue");
                Instant predicted = instant(job.get("predicted_start"));
                if (predicted != null) {
                    Duration in = Duration.between(now, predicted);
                    b.append(in.isNegative() || in.isZero() ? " · should start now" : " · starts in ~" + duration(in));
                }
                JsonNode reason = job.get("pending_reason");
                if (reason != null && reason.isObject()) {
                    b.append(" · ")
                            .append(reason.path("message")
                                    .asText(reason.path("code").asText()));
                }
                if (job.path("requeues").asInt() > 0)
                    b.append(" · requeued ").append(job.get("requeues").asInt()).append("×");
            }
            case "claimed" ->
                b.append(runnerName == null ? "" : " by " + runnerName).append(" · preparing");
            case "running" -> {
                if (runnerName != null) b.append(" on ").append(runnerName);
                Instant started = instant(job.get("started"));
                if (started != null) b.append(" ").append(duration(Duration.between(started, now)));
                if (lastLogLine != null) b.append(" · ").append(lastLogLine);
            }
            case "completed" -> b.append(" · reading results");
            default -> {}
        }
        return b.toString();
    }

    /** "42s", "1m05s", "2h03m": short and steady in width as it counts up. */
    static String duration(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 60) return s + "s";
        if (s < 3600) return (s / 60) + "m" + String.format("%02d", s % 60) + "s";
        return (s / 3600) + "h" + String.format("%02d", (s % 3600) / 60) + "m";
    }

    static Instant instant(JsonNode node) {
        if (node == null || !node.isTextual()) return null;
        try {
            return Instant.parse(node.asText());
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
