package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;

@Command(
        name = "whoami",
        mixinStandardHelpOptions = true,
        description = "Say who the token in use is, and with which scope and roles.")
final class WhoAmICommand extends ClientCommand {
    @Override
    JsonNode call(ApiClient api) {
        return api.get("/v0/whoami");
    }

    @Override
    void human(JsonNode answer, java.io.PrintWriter out) {
        if (answer.path("admin").asBoolean()) {
            out.println("admin (the admin token: every route, server-wide actions included)");
            return;
        }
        JsonNode token = answer.path("token");
        out.println(answer.path("actor").asText() + ", token "
                + token.path("uuid").asText() + " ('" + token.path("name").asText() + "'): "
                + token.path("role").asText() + " on "
                + (token.path("scope").has("project") ? "project " : "organization ")
                + token.path("scope").path("slug").asText()
                + (token.hasNonNull("expires")
                        ? ", expires " + token.path("expires").asText()
                        : ""));
        out.println("the user's roles:");
        Output.list(out, answer.path("roles"), "scope.slug", "role");
    }
}
