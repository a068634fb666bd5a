package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton runners nats-user}: the nats-server user of a lease runner, made from the
 * runner's specs on the server, so it is regenerated (same password with --password-file) after
 * {@code add-spec} or {@code remove-spec}.
 */
@Command(
        name = "nats-user",
        description = {
            "Print the nats-server authorization block of a lease runner:",
            "it may pull only from its specs' consumers and read only its own control subject."
        })
final class RunnersNatsUser extends ClientCommand {
    @Option(names = "--runner", required = true, description = "UUID or slug")
    String runner;

    @Option(
            names = "--password-file",
            paramLabel = "FILE",
            description =
                    "the user's password: read from FILE, or generated into a new FILE (mode 0600) when it is missing; without it a new password is generated")
    Path passwordFile;

    @Override
    JsonNode call(ApiClient api) {
        String slug = api.get("/v0/runners/" + seg(runner)).path("slug").asText();
        List<String> specs = new ArrayList<>();
        for (JsonNode s : api.get("/v0/runners/" + seg(runner) + "/specs")) {
            if (s.path("archived").isMissingNode() || s.path("archived").isNull())
                specs.add(s.path("slug").asText());
        }
        if (specs.isEmpty()) note("Runner " + slug + " serves no spec: this user can only read its control subject.");
        NatsRunnerUser user;
        try {
            user = NatsRunnerUser.of(slug, specs, password());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--password-file " + passwordFile + ": " + e.getMessage());
        }
        ObjectNode answer = Wire.mapper().createObjectNode();
        answer.put("user", user.user());
        answer.put("inbox_prefix", user.inboxPrefix());
        answer.set("publish", Wire.mapper().valueToTree(user.publish()));
        answer.set("subscribe", Wire.mapper().valueToTree(user.subscribe()));
        answer.put("authorization", user.authorization());
        return answer;
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        out.print(answer.path("authorization").asText());
    }

    private String password() {
        if (passwordFile == null) return generated();
        if (Files.exists(passwordFile)) {
            try {
                return Files.readString(passwordFile).strip();
            } catch (IOException e) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--password-file " + passwordFile + " cannot be read: " + e);
            }
        }
        SecretFile.create(passwordFile, "--password-file", spec.commandLine());
        String password = generated();
        try {
            Files.writeString(passwordFile, password + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the password to " + passwordFile, e);
        }
        note("Password written to " + passwordFile + " (mode 0600).");
        return password;
    }

    /** 24 random bytes, URL-safe so the password fits in the runner's nats:// URL as it is. */
    private static String generated() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
