package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "audit",
        mixinStandardHelpOptions = true,
        description = "Read the audit log: who changed what, when and from where (admin).",
        subcommands = {AuditCommand.ListEvents.class})
final class AuditCommand {
    @Command(name = "list", description = "List audit events, newest first.")
    static final class ListEvents extends ClientCommand {
        @Option(names = "--action", description = "e.g. token.created, runner.key_rotated, job.canceled")
        String action;

        @Option(names = "--actor", description = "admin or user:<name>")
        String actor;

        @Option(names = "--since", description = "ISO-8601 time, e.g. 2026-01-01T00:00:00Z")
        String since;

        @Option(names = "--until", description = "ISO-8601 time (exclusive)")
        String until;

        @Option(names = "--before", description = "an event id: the next page after a previous one's next_before")
        Long before;

        @Option(names = "--limit", description = "at most this many (1-1000, default 100)")
        Integer limit;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> query = new LinkedHashMap<>();
            query.put("action", action);
            query.put("actor", actor);
            query.put("since", since);
            query.put("until", until);
            query.put("before", before);
            query.put("limit", limit);
            return api.get("/v0/audit" + ApiClient.query(query));
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            Output.list(out, answer.path("events"), "id", "at", "actor", "action", "target", "address");
            if (answer.hasNonNull("next_before"))
                out.println("more: --before " + answer.path("next_before").asText());
        }
    }
}
