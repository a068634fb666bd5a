package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code baton runners nats-user} against a real server: the grant follows the runner's specs. */
class RunnersNatsUserTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;

    record Result(int exit, String out, String err) {
        JsonNode json() {
            try {
                return Wire.mapper().readTree(out);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + out + err, e);
            }
        }
    }

    @BeforeEach
    void start() {
        server = BatonServer.builder(ServerConfig.defaults(dir).withListen("127.0.0.1", 0))
                .start();
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

    void spec(String name) {
        Result r = baton(
                "specs",
                "create",
                "--name",
                name,
                "--architecture",
                "x86_64",
                "--cpu",
                "1",
                "--memory",
                "1GiB",
                "--disk",
                "1GiB");
        assertThat(r.exit()).as(r.err()).isZero();
    }

    @Test
    void grantsTheRunnersSpecsAndKeepsThePasswordOfItsFile() throws Exception {
        spec("gpu");
        spec("small");
        spec("other");
        assertThat(baton("runners", "create", "--name", "box", "--spec", "gpu", "--spec", "small")
                        .exit())
                .isZero();
        Path passwordFile = dir.resolve("box.nats-password");

        Result json =
                baton("runners", "nats-user", "--runner", "box", "--password-file", passwordFile.toString(), "--json");
        assertThat(json.exit()).as(json.err()).isZero();
        assertThat(json.json().path("user").asText()).isEqualTo("runner-box");
        assertThat(json.json().path("publish").toString())
                .contains("$JS.API.CONSUMER.MSG.NEXT.BATON_LEASES.baton-gpu", "$JS.ACK.BATON_LEASES.baton-small.>")
                .doesNotContain("baton-other");
        assertThat(json.json().path("subscribe").toString())
                .isEqualTo("[\"_INBOX_baton.box.>\",\"baton.control.box\"]");
        assertThat(json.json().path("inbox_prefix").asText()).isEqualTo("_INBOX_baton.box");
        assertThat(Files.getPosixFilePermissions(passwordFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        String password = Files.readString(passwordFile).strip();
        assertThat(password).hasSizeGreaterThanOrEqualTo(32);

        // After a spec change the block is made again with the same password.
        assertThat(baton("runners", "remove-spec", "box", "small").exit()).isZero();
        Result text = baton("runners", "nats-user", "--runner", "box", "--password-file", passwordFile.toString());
        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out())
                .startsWith("authorization {")
                .contains("password: \"" + password + "\"")
                .contains("\"$JS.API.CONSUMER.INFO.BATON_LEASES.baton-gpu\"")
                .doesNotContain("baton-small");
    }

    @Test
    void anUnknownRunnerIsRefusedAndNoFileIsMade() {
        Path passwordFile = dir.resolve("nope.nats-password");
        Result r = baton("runners", "nats-user", "--runner", "nope", "--password-file", passwordFile.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("runner_not_found");
        assertThat(passwordFile).doesNotExist();
    }
}
