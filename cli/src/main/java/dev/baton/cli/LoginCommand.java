package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Stores the server and a token in the client's config file (mode 0600) after checking them with
 * {@code GET /v0/whoami}, so that every client command uses them without flags.
 */
@Command(
        name = "login",
        mixinStandardHelpOptions = true,
        description = {
            "Store a server and a token in the config file (mode 0600) for every client command.",
            "The token comes from --token-file, or standard input (one line), never from a flag visible to other users."
        })
final class LoginCommand implements Callable<Integer> {
    @Option(names = "--server", required = true, description = "server URL, e.g. https://baton.example.com")
    String server;

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description = "file holding the token (default: read one line from standard input)")
    Path tokenFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        CliEnvironment env = Baton.environment(spec);
        String token = tokenFile != null ? Files.readString(tokenFile).strip() : readLine(env);
        if (token == null || token.isEmpty())
            throw new ClientException("no token: give --token-file or a token on standard input");
        String url = server.replaceAll("/+$", "");
        JsonNode me = new ApiClient(url, token).get("/v0/whoami");
        Path file = env.configFile();
        write(file, "# written by 'baton login'\nserver = " + url + "\ntoken = " + token + "\n");
        spec.commandLine()
                .getOut()
                .println("Logged in to " + url + " as " + me.path("actor").asText()
                        + (me.path("admin").asBoolean()
                                ? ""
                                : " (" + me.path("token").path("role").asText() + " on "
                                        + me.path("token")
                                                .path("scope")
                                                .path("slug")
                                                .asText() + ")")
                        + "; saved in " + file + " (mode 0600).");
        spec.commandLine().getOut().flush();
        return ExitCodes.OK;
    }

    private static String readLine(CliEnvironment env) throws IOException {
        String line = env.stdin().readLine();
        return line == null ? null : line.strip();
    }

    /** Replaces the file with mode 0600 from the start: the token is never readable by others, not even for a moment. */
    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(tmp, text);
            Files.move(
                    tmp,
                    file,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
