package dev.baton.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One OJS worker as the console's OJS workers page shows it (issue 47): what {@code GET
 * /ojs/v1/workers} says of it. {@code directed} is the operator's direction in force (quiet,
 * terminate), null when none; a terminated worker can be directed no more.
 */
public record OjsWorkerRow(
        String id,
        List<String> queues,
        String state,
        String directed,
        String host,
        String pid,
        String lastHeartbeat,
        int activeJobs,
        boolean registered) {
    public boolean terminated() {
        return "terminated".equals(state);
    }

    /** The worker's id as a path segment of its console routes (ids are the worker's own choice). */
    public String segment() {
        return URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20");
    }

    public String queueList() {
        return queues.isEmpty() ? "—" : String.join(", ", queues);
    }
}
