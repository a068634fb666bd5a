package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "webhooks",
        mixinStandardHelpOptions = true,
        description = "Endpoints that receive each new alert of a project, signed (docs/alerts.md); maintainer and up.",
        subcommands = {
            WebhooksCommand.Create.class,
            WebhooksCommand.ListWebhooks.class,
            WebhooksCommand.Delete.class,
            WebhooksCommand.Deliveries.class
        })
final class WebhooksCommand {
    static String path(String project) {
        return "/v0/projects/" + seg(project) + "/webhooks";
    }

    @Command(name = "create", description = "Register an http(s) URL; prints the signing secret, once.")
    static final class Create extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(names = "--url", required = true)
        String url;

        @Override
        JsonNode call(ApiClient api) {
            JsonNode created = api.post(path(project), Map.of("url", url));
            note(
                    "Save the secret now: it is shown only once. Each body is signed with it: X-Baton-Signature: sha256=HMAC-SHA256(secret, body).");
            return created;
        }
    }

    @Command(name = "list", description = "List a project's webhooks.")
    static final class ListWebhooks extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(path(project));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table("WEBHOOK", "URL", "CREATED");
            for (JsonNode w : answer.path("webhooks"))
                t.row(
                        w.path("uuid").asText(),
                        w.path("url").asText(),
                        w.path("created").asText());
            if (t.isEmpty()) out.println("(no webhooks)");
            else t.print(out);
        }
    }

    @Command(name = "delete", description = "Delete a webhook; deliveries not yet made are dropped.")
    static final class Delete extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "WEBHOOK", description = "webhook UUID")
        String webhook;

        @Override
        JsonNode call(ApiClient api) {
            api.delete(path(project) + "/" + seg(webhook));
            note("Deleted webhook " + webhook + ".");
            return null;
        }
    }

    @Command(name = "deliveries", description = "A webhook's delivery log, newest first.")
    static final class Deliveries extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "WEBHOOK", description = "webhook UUID")
        String webhook;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(path(project) + "/" + seg(webhook) + "/deliveries");
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table(
                    "DELIVERY", "ALERT", "ATTEMPTS", "DELIVERED", "NEXT ATTEMPT", "LAST STATUS", "LAST ERROR");
            for (JsonNode d : answer.path("deliveries")) {
                t.row(
                        d.path("id").asText(),
                        d.path("alert").asText(),
                        d.path("attempts").asText(),
                        Output.text(d.get("delivered")),
                        Output.text(d.get("next_attempt")),
                        Output.text(d.get("last_status")),
                        Output.text(d.get("last_error")));
            }
            if (t.isEmpty()) out.println("(no deliveries)");
            else t.print(out);
        }
    }
}
