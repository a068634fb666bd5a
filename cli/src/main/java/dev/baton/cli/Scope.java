package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import picocli.CommandLine.Option;

/** Where a role or a token applies: exactly one of {@code --org} and {@code --project}. */
final class Scope {
    @Option(names = "--project", paramLabel = "PROJECT", required = true, description = "a project (UUID or slug)")
    String project;

    @Option(
            names = {"--org", "--organization"},
            paramLabel = "ORG",
            required = true,
            description = "an organization and all its projects (UUID or slug)")
    String organization;

    /** The API path of the scope, e.g. {@code /v0/projects/web}. */
    String path() {
        return project != null ? "/v0/projects/" + seg(project) : "/v0/organizations/" + seg(organization);
    }
}
