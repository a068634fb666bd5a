package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "orgs",
        mixinStandardHelpOptions = true,
        description = "Manage organizations and their plan tier.",
        subcommands = {
            OrganizationsCommand.Create.class,
            OrganizationsCommand.ListOrgs.class,
            OrganizationsCommand.Get.class,
            OrganizationsCommand.SetPlan.class
        })
final class OrganizationsCommand {
    @Command(name = "create", description = "Create an organization.")
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true)
        String name;

        @Option(names = "--slug")
        String slug;

        @Option(names = "--plan", description = "enterprise, team, free (default) or unclaimed")
        String plan;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> body = new HashMap<>();
            body.put("name", name);
            if (slug != null) body.put("slug", slug);
            if (plan != null) body.put("plan", plan);
            return api.post("/v0/organizations", body);
        }
    }

    @Command(name = "list", description = "List organizations.")
    static final class ListOrgs extends ClientCommand {
        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/organizations");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            Output.list(out, answer, "slug", "name", "uuid", "plan");
        }
    }

    @Command(name = "get", description = "Show one organization.")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "ORG")
        String org;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/organizations/" + seg(org));
        }
    }

    @Command(name = "set-plan", description = "Change the plan tier (priority of jobs submitted from now on).")
    static final class SetPlan extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ORG")
        String org;

        @Parameters(index = "1", paramLabel = "PLAN")
        String plan;

        @Override
        JsonNode call(ApiClient api) {
            return api.patch("/v0/organizations/" + seg(org), Map.of("plan", plan));
        }
    }
}
