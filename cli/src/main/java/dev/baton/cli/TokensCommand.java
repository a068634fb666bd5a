package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "tokens",
        mixinStandardHelpOptions = true,
        description =
                "API tokens of users, scoped to a project or organization with a role; shown once, revocable at once.",
        subcommands = {TokensCommand.Create.class, TokensCommand.ListTokens.class, TokensCommand.Revoke.class})
final class TokensCommand {
    @Command(
            name = "create",
            description = {
                "Create a token for a user (at most the user's own role there); prints it once,",
                "or with --secret-file writes it to a new file (mode 0600) and prints where."
            })
    static final class Create extends ClientCommand {
        @Option(names = "--user", required = true, description = "name or UUID")
        String user;

        @ArgGroup(multiplicity = "1")
        Scope scope;

        @Option(names = "--role", required = true, description = "viewer, submitter, maintainer or owner")
        String role;

        @Option(
                names = "--expires",
                paramLabel = "DURATION",
                description = "lifetime such as 30d, 12h or 90m (default: never expires)")
        String expires;

        @Option(names = "--name", description = "what the token is for (default: '<role> token')")
        String name;

        @Option(
                names = "--secret-file",
                paramLabel = "FILE",
                description =
                        "write the token to FILE, created with mode 0600 (never overwritten), instead of printing it")
        Path secretFile;

        @Override
        JsonNode call(ApiClient api) {
            if (secretFile != null) SecretFile.create(secretFile, "--secret-file", spec.commandLine());
            JsonNode created;
            try {
                Map<String, Object> body = new HashMap<>();
                body.put("user", user);
                if (scope.project != null) body.put("project", scope.project);
                else body.put("organization", scope.organization);
                body.put("role", role);
                if (expires != null) body.put("expires_in", expires);
                if (name != null) body.put("name", name);
                created = api.post("/v0/tokens", body);
            } catch (RuntimeException e) {
                if (secretFile != null) SecretFile.deleteQuietly(secretFile);
                throw e;
            }
            if (secretFile == null) {
                note("Save the token now: it is shown only once (revoke it with 'baton tokens revoke "
                        + created.path("token").path("uuid").asText() + "').");
                return created;
            }
            SecretFile.write(
                    secretFile,
                    created.path("secret").asText(),
                    "revoke it with 'baton tokens revoke "
                            + created.path("token").path("uuid").asText() + "' and create another");
            ObjectNode shown = ((ObjectNode) created).deepCopy();
            shown.remove("secret");
            shown.put("secret_file", secretFile.toAbsolutePath().toString());
            return shown;
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            JsonNode t = answer.path("token");
            out.println("Token " + t.path("uuid").asText() + " for user "
                    + t.path("user").path("name").asText() + ": "
                    + t.path("role").asText() + " on "
                    + t.path("scope").path("slug").asText()
                    + (t.hasNonNull("expires")
                            ? ", expires " + t.path("expires").asText()
                            : ", does not expire") + ".");
            if (answer.has("secret")) out.println(answer.path("secret").asText());
            else
                out.println("Written to " + answer.path("secret_file").asText()
                        + " (mode 0600); use it with --token-file or 'baton login'.");
        }
    }

    @Command(name = "list", description = "List the tokens you may see (never their secrets).")
    static final class ListTokens extends ClientCommand {
        @Option(names = "--user", description = "only this user's tokens")
        String user;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> query = new HashMap<>();
            query.put("user", user);
            return api.get("/v0/tokens" + ApiClient.query(query));
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            Output.list(out, answer, "uuid", "user.name", "scope.slug", "role", "status", "expires", "last_used");
        }
    }

    @Command(name = "revoke", description = "Revoke a token: refused from its next request on.")
    static final class Revoke extends ClientCommand {
        @Parameters(paramLabel = "TOKEN", description = "the token's UUID (from 'baton tokens list')")
        String token;

        @Override
        JsonNode call(ApiClient api) {
            return api.delete("/v0/tokens/" + seg(token));
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            out.println("Token " + answer.path("uuid").asText() + " revoked.");
        }
    }
}
