package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "members",
        mixinStandardHelpOptions = true,
        description =
                "Roles of users on organizations and projects: viewer, submitter, maintainer, owner (owners and the admin).",
        subcommands = {MembersCommand.Set.class, MembersCommand.ListMembers.class, MembersCommand.Remove.class})
final class MembersCommand {
    @Command(
            name = "set",
            description =
                    "Give a user a role on an organization (and all its projects) or a project, replacing any role there.")
    static final class Set extends ClientCommand {
        @ArgGroup(multiplicity = "1")
        Scope scope;

        @Option(names = "--user", required = true, description = "name or UUID")
        String user;

        @Option(names = "--role", required = true, description = "viewer, submitter, maintainer or owner")
        String role;

        @Override
        JsonNode call(ApiClient api) {
            return api.put(scope.path() + "/members/" + seg(user), Map.of("role", role));
        }
    }

    @Command(name = "list", description = "List the members of an organization or project.")
    static final class ListMembers extends ClientCommand {
        @ArgGroup(multiplicity = "1")
        Scope scope;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(scope.path() + "/members");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            Output.list(out, answer, "user.name", "role", "scope.slug", "created");
        }
    }

    @Command(
            name = "remove",
            description =
                    "Take a user's role on an organization or project away (its tokens there stop working at once).")
    static final class Remove extends ClientCommand {
        @ArgGroup(multiplicity = "1")
        Scope scope;

        @Option(names = "--user", required = true, description = "name or UUID")
        String user;

        @Override
        JsonNode call(ApiClient api) {
            api.delete(scope.path() + "/members/" + seg(user));
            note("Removed.");
            return null;
        }
    }
}
