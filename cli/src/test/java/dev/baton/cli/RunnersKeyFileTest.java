package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code baton runners create --key-file} against the whole server (channel included): the key goes
 * to a private new file, never to the screen, and opens the runner's channel.
 */
class RunnersKeyFileTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;

    record Result(int exit, String out, String err) {}

    @BeforeEach
    void start() {
        server = ServerAssembly.start(ServerConfig.defaults(dir).withListen("127.0.0.1", 0));
        url = "http://127.0.0.1:" + server.port();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    Result baton(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(
                "--server", url, "--token-file", dir.resolve("admin-token").toString()));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Baton.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(all.toArray(String[]::new));
        return new Result(exit, out.toString(), err.toString());
    }

    /** Opens the runner's channel with {@code key}: the server upgrades only for the runner's current key. */
    void connect(String runner, String key) {
        WebSocket ws = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .header("Authorization", "Bearer " + key)
                .buildAsync(
                        URI.create("ws://127.0.0.1:" + server.port() + "/v0/runners/" + runner + "/channel"),
                        new WebSocket.Listener() {})
                .orTimeout(30, TimeUnit.SECONDS)
                .exceptionally(e -> {
                    throw new CompletionException("channel of " + runner + ": " + e, e);
                })
                .join();
        ws.abort();
    }

    @Test
    void writesTheKeyToANewPrivateFileAndPrintsWhereItIs() throws Exception {
        assertThat(baton(
                                "specs",
                                "create",
                                "--name",
                                "small",
                                "--architecture",
                                "x86_64",
                                "--cpu",
                                "1",
                                "--memory",
                                "1GiB",
                                "--disk",
                                "1GiB")
                        .exit())
                .isZero();
        Path keyFile = dir.resolve("box.key");
        Result created =
                baton("runners", "create", "--name", "box", "--spec", "small", "--key-file", keyFile.toString());
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(Files.getPosixFilePermissions(keyFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        String key = Files.readString(keyFile).strip();
        assertThat(key).startsWith("baton_runner_");
        assertThat(created.out())
                .contains("Runner box")
                .contains("key written to " + keyFile.toAbsolutePath())
                .doesNotContain(key);
        assertThat(created.err()).doesNotContain(key);

        String uuid = Wire.mapper()
                .readTree(baton("runners", "get", "box", "--json").out())
                .path("uuid")
                .asText();
        connect(uuid, key);
        assertThatThrownBy(() -> connect(uuid, key.substring(0, key.length() - 1) + (key.endsWith("0") ? "1" : "0")))
                .isInstanceOf(CompletionException.class);

        // --json: the runner without its key, and where the key is.
        Path jsonKeyFile = dir.resolve("json.key");
        Result json = baton("runners", "create", "--name", "box2", "--key-file", jsonKeyFile.toString(), "--json");
        assertThat(json.exit()).as(json.err()).isZero();
        JsonNode answer = Wire.mapper().readTree(json.out());
        assertThat(answer.has("key")).isFalse();
        assertThat(answer.path("key_file").asText())
                .isEqualTo(jsonKeyFile.toAbsolutePath().toString());
        assertThat(answer.path("runner").path("slug").asText()).isEqualTo("box2");
        connect(
                answer.path("runner").path("uuid").asText(),
                Files.readString(jsonKeyFile).strip());
    }

    @Test
    void anExistingFileIsNeverOverwrittenAndNoRunnerIsCreated() throws Exception {
        Path keyFile = Files.writeString(dir.resolve("taken.key"), "something precious\n");
        Result refused = baton("runners", "create", "--name", "box", "--key-file", keyFile.toString());
        assertThat(refused.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(refused.err()).contains("--key-file").contains("exists already");
        assertThat(Files.readString(keyFile)).isEqualTo("something precious\n");
        assertThat(baton("runners", "list", "--json").out()).doesNotContain("\"box\"");

        // A refused creation (name taken) leaves no empty key file behind.
        assertThat(baton("runners", "create", "--name", "box").exit()).isZero();
        Path second = dir.resolve("second.key");
        Result taken = baton("runners", "create", "--name", "box", "--key-file", second.toString());
        assertThat(taken.exit()).isNotZero();
        assertThat(second).doesNotExist();

        // Without --key-file the key is printed, as before.
        Result printed = baton("runners", "create", "--name", "other");
        assertThat(printed.out()).contains("key: baton_runner_");
    }
}
