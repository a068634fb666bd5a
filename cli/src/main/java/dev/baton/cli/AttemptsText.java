package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;

/**
 * A job's attempts as text (issue 41): each claim's runner (by slug), why it ended and, for a
 * started attempt that failed, whether it was retried or why not — what an operator asks after a
 * retry.
 */
final class AttemptsText {
    private AttemptsText() {}

    /** Prints the attempts table; nothing when the job has no attempts (or the server sends none). */
    static void print(ApiClient api, JsonNode attempts, PrintWriter out) {
        if (attempts == null || !attempts.isArray() || attempts.isEmpty()) return;
        Map<String, String> names = new HashMap<>();
        Table table = new Table("ATTEMPT", "RUNNER", "ENDED", "EXIT", "RETRIED");
        for (JsonNode a : attempts) {
            String ended = a.path("end_reason").asText(a.path("outcome").asText("running"));
            if (a.hasNonNull("decline_code"))
                ended += " (" + a.get("decline_code").asText() + ")";
            table.row(
                    a.path("number").asText(),
                    runner(api, a.path("runner").asText(null), names),
                    ended,
                    a.hasNonNull("exit_code") ? a.get("exit_code").asText() : "",
                    retried(a));
        }
        table.print(out);
    }

    /** The runner's slug, asked once per runner; its UUID's start when it cannot be read. */
    private static String runner(ApiClient api, String uuid, Map<String, String> names) {
        if (uuid == null) return "-";
        return names.computeIfAbsent(uuid, u -> {
            try {
                return api.get("/v0/runners/" + ApiClient.seg(u)).path("slug").asText(u);
            } catch (ClientException e) {
                return u.substring(0, Math.min(8, u.length()));
            }
        });
    }

    private static String retried(JsonNode a) {
        if (!a.has("retried") || a.get("retried").isNull()) return "";
        if (a.get("retried").asBoolean()) return "yes";
        return "no (" + a.path("not_retried").asText("") + ")";
    }
}
