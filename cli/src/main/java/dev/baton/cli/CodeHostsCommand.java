package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton code-hosts}: where a project's judged reports go beside their pull requests
 * (docs/pull-requests.md). The token is read from a file or standard input, never from a flag
 * (other users see a process's arguments), and no command prints it: the server never shows it.
 */
@Command(
        name = "code-hosts",
        mixinStandardHelpOptions = true,
        description =
                "A project's GitHub repositories and GitLab projects that get results on pull requests (docs/pull-requests.md); maintainer and up.",
        subcommands = {
            CodeHostsCommand.ListHosts.class,
            CodeHostsCommand.SetHost.class,
            CodeHostsCommand.Delete.class,
            CodeHostsCommand.Deliveries.class
        })
final class CodeHostsCommand {
    static String path(String project) {
        return "/v0/projects/" + seg(project) + "/code-hosts";
    }

    @Command(name = "list", description = "List a project's code hosts (never their tokens).")
    static final class ListHosts extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(path(project));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table("HOST", "KIND", "REPOSITORY", "API URL", "CREATED");
            for (JsonNode h : answer.path("code_hosts"))
                t.row(
                        h.path("uuid").asText(),
                        h.path("kind").asText(),
                        h.path("repository").asText(),
                        h.path("api_url").asText(),
                        h.path("created").asText());
            if (t.isEmpty()) out.println("(no code hosts)");
            else t.print(out);
        }
    }

    @Command(
            name = "set",
            description = {
                "Add a GitHub repository or GitLab project with its token, or give the one already there a new token.",
                "The token comes from --host-token-file, or standard input (one line), never from a flag; it is never shown again."
            })
    static final class SetHost extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Option(names = "--kind", required = true, description = "github or gitlab")
        String kind;

        @Option(
                names = "--repository",
                required = true,
                description = "owner/name on GitHub; the numeric id or group/name path on GitLab")
        String repository;

        @Option(
                names = "--host-token-file",
                paramLabel = "FILE",
                description = "file holding the host's token (default: read one line from standard input)")
        Path tokenFile;

        @Option(
                names = "--api-url",
                description =
                        "default https://api.github.com or https://gitlab.com/api/v4; GitHub Enterprise Server or a self-managed GitLab")
        String apiUrl;

        @Override
        JsonNode call(ApiClient api) {
            String token = token();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("kind", kind);
            body.put("repository", repository);
            body.put("token", token);
            if (apiUrl != null) body.put("api_url", apiUrl);
            // The same kind and repository is the same host: its token is replaced, so that its
            // sticky comments stay the ones later runs update.
            String existing = null;
            for (JsonNode h : api.get(path(project)).path("code_hosts")) {
                if (kind.equals(h.path("kind").asText())
                        && repository.equals(h.path("repository").asText()))
                    existing = h.path("uuid").asText();
            }
            JsonNode host = existing == null
                    ? api.post(path(project), body)
                    : api.put(path(project) + "/" + seg(existing), body);
            note((existing == null ? "Added " : "Replaced the token of ") + kind + " " + repository + " ("
                    + host.path("uuid").asText() + "); the token is kept by the server and never shown.");
            return host;
        }

        private String token() {
            String token;
            try {
                token = tokenFile != null
                        ? Files.readString(tokenFile).strip()
                        : environment().stdin().readLine();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the token", e);
            }
            token = token == null ? "" : token.strip();
            if (token.isEmpty())
                throw new ClientException("no token: give --host-token-file or the token on standard input");
            return token;
        }
    }

    @Command(name = "delete", description = "Delete a code host; deliveries not yet made are dropped.")
    static final class Delete extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "HOST", description = "code host UUID")
        String host;

        @Override
        JsonNode call(ApiClient api) {
            api.delete(path(project) + "/" + seg(host));
            note("Deleted code host " + host + ".");
            return null;
        }
    }

    @Command(name = "deliveries", description = "A code host's delivery log, newest first.")
    static final class Deliveries extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "HOST", description = "code host UUID")
        String host;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(path(project) + "/" + seg(host) + "/deliveries");
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table(
                    "DELIVERY",
                    "REPORT",
                    "PR/MR",
                    "ATTEMPTS",
                    "DELIVERED",
                    "NEXT ATTEMPT",
                    "LAST STATUS",
                    "LAST ERROR");
            for (JsonNode d : answer.path("deliveries")) {
                t.row(
                        d.path("id").asText(),
                        d.path("report").asText(),
                        d.path("number").asText(),
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
