package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "jobs", mixinStandardHelpOptions = true, description = "List, inspect and cancel a project's jobs.",
        subcommands = {JobsCommand.ListJobs.class, JobsCommand.Get.class, JobsCommand.Cancel.class})
final class JobsCommand {
    @Command(name = "list", description = "List jobs, newest first.")
    static final class ListJobs extends ClientCommand {
        @Option(names = "--project", required = true) String project;
        @Option(names = "--status", description = "pending, claimed, running, completed, failed, canceled, processed") String status;
        @Option(names = "--spec") String specRef;
        @Option(names = "--runner") String runner;
        @Option(names = "--limit") Integer limit;
        @Option(names = "--offset") Integer offset;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("status", status);
            q.put("spec", specRef);
            q.put("runner", runner);
            q.put("limit", limit);
            q.put("offset", offset);
            return api.get("/v0/projects/" + seg(project) + "/jobs" + ApiClient.query(q));
        }
    }

    @Command(name = "get", description = "Show a job and its output.")
    static final class Get extends ClientCommand {
        @Option(names = "--project", required = true) String project;
        @Parameters(paramLabel = "JOB", description = "job UUID") String job;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/projects/" + seg(project) + "/jobs/" + seg(job));
        }
    }

    @Command(name = "cancel", description = "Cancel a pending, claimed or running job.")
    static final class Cancel extends ClientCommand {
        @Option(names = "--project", required = true) String project;
        @Parameters(paramLabel = "JOB") String job;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/projects/" + seg(project) + "/jobs/" + seg(job) + "/cancel", null);
        }
    }
}
