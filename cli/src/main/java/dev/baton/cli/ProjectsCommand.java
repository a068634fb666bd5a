package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "projects",
        mixinStandardHelpOptions = true,
        description = "Manage projects.",
        subcommands = {ProjectsCommand.Create.class, ProjectsCommand.ListProjects.class, ProjectsCommand.Get.class})
final class ProjectsCommand {
    @Command(name = "create", description = "Create a project in an organization.")
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true)
        String name;

        @Option(names = "--slug")
        String slug;

        @Option(names = "--org", required = true, description = "organization UUID or slug")
        String org;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> body = new HashMap<>();
            body.put("name", name);
            if (slug != null) body.put("slug", slug);
            body.put("organization", org);
            return api.post("/v0/projects", body);
        }
    }

    @Command(name = "list", description = "List projects.")
    static final class ListProjects extends ClientCommand {
        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/projects");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            Output.list(out, answer, "slug", "name", "uuid", "organization");
        }
    }

    @Command(name = "get", description = "Show one project.")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "PROJECT")
        String project;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/projects/" + seg(project));
        }
    }
}
