package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "users",
        mixinStandardHelpOptions = true,
        description = "Manage users: people and pipelines that hold API tokens (admin).",
        subcommands = {UsersCommand.Create.class, UsersCommand.ListUsers.class, UsersCommand.Get.class})
final class UsersCommand {
    @Command(
            name = "create",
            description =
                    "Create a user; give it roles with 'baton members set' and tokens with 'baton tokens create'.")
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true)
        String name;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/users", Map.of("name", name));
        }
    }

    @Command(name = "list", description = "List users.")
    static final class ListUsers extends ClientCommand {
        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/users");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            Output.list(out, answer, "name", "uuid", "created");
        }
    }

    @Command(name = "get", description = "Show one user.")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "USER", description = "name or UUID")
        String user;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/users/" + seg(user));
        }
    }
}
