package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton runners drain|resume|capabilities} (issue 41) through the real CLI against a real
 * server, with a protocol-speaking runner on the real channel receiving the directives.
 */
class RunnerOperatorCommandsTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;
    Path home;
    final List<TestRunner> runners = new ArrayList<>();

    @BeforeEach
    void start() {
        server = ServerAssembly.start(ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0));
        url = "http://127.0.0.1:" + server.port();
        home = dir.resolve("home");
        CliRun.Result small = admin(
                "specs",
                "create",
                "--name",
                "small",
                "--architecture",
                "x86_64",
                "--cpu",
                "2",
                "--memory",
                "1GiB",
                "--disk",
                "8GiB");
        assertThat(small.exit()).as(small.err()).isZero();
        assertThat(admin(
                                "specs",
                                "create",
                                "--name",
                                "large",
                                "--architecture",
                                "x86_64",
                                "--cpu",
                                "8",
                                "--memory",
                                "8GiB",
                                "--disk",
                                "8GiB")
                        .exit())
                .isZero();
    }

    @AfterEach
    void stop() {
        runners.forEach(TestRunner::crash);
        server.close();
    }

    CliRun.Result admin(String... args) {
        return as(dir.resolve("data").resolve("admin-token"), args);
    }

    CliRun.Result as(Path tokenFile, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--server", url, "--token-file", tokenFile.toString()));
        return CliRun.run(CliRun.environment(home, Map.of()), all.toArray(String[]::new));
    }

    /** Creates a runner serving "small" through the CLI and connects it; returns its slug. */
    TestRunner connected(String name, RunnerCapabilities capabilities) {
        CliRun.Result created = admin("runners", "create", "--name", name, "--spec", "small", "--json");
        assertThat(created.exit()).as(created.err()).isZero();
        JsonNode json = created.json();
        String slug = json.at("/runner/slug").asText();
        TestRunner runner = TestRunner.connect(
                URI.create(url.replace("http://", "ws://") + "/v0/runners/" + slug + "/channel"),
                json.get("key").asText());
        runners.add(runner);
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1, capabilities));
        // The heartbeat's ack comes after the ready was handled: the server knows the runner from here on.
        runner.send(new RunnerMessage.Heartbeat(null, null));
        runner.expect(ServerMessage.Ack.class);
        return runner;
    }

    /** An owner of organization and project "web" (not the admin), its token in a file. */
    Path ownerToken() {
        assertThat(admin("orgs", "create", "--name", "acme").exit()).isZero();
        assertThat(admin("projects", "create", "--name", "web", "--org", "acme").exit())
                .isZero();
        assertThat(admin("users", "create", "--name", "lead").exit()).isZero();
        assertThat(admin("members", "set", "--project", "web", "--user", "lead", "--role", "owner")
                        .exit())
                .isZero();
        Path file = dir.resolve("lead.token");
        CliRun.Result token = admin(
                "tokens",
                "create",
                "--user",
                "lead",
                "--project",
                "web",
                "--role",
                "owner",
                "--secret-file",
                file.toString());
        assertThat(token.exit()).as(token.err()).isZero();
        return file;
    }

    @Test
    void drainAndResumeReachTheRunnerOverItsChannelAndAreAudited() {
        TestRunner runner = connected("box 1", null);

        CliRun.Result drain = admin("runners", "drain", "box-1");
        assertThat(drain.exit()).as(drain.err()).isZero();
        assertThat(drain.out()).contains("box-1").contains("drain (quiet)");
        assertThat(runner.expect(ServerMessage.Drain.class).state()).isEqualTo(DrainState.QUIET);

        CliRun.Result resume = admin("runners", "resume", "box-1", "--json");
        assertThat(resume.exit()).as(resume.err()).isZero();
        assertThat(resume.json().path("delivered").asBoolean()).isTrue();
        assertThat(runner.expect(ServerMessage.Drain.class).state()).isEqualTo(DrainState.RUNNING);

        assertThat(admin("runners", "drain", "box-1", "--terminate").exit()).isZero();
        assertThat(runner.expect(ServerMessage.Drain.class).state()).isEqualTo(DrainState.TERMINATE);

        assertThat(admin("audit", "list", "--action", "runner.drained", "--json")
                        .json()
                        .path("events"))
                .hasSize(3);
    }

    @Test
    void aRunnerThatIsNotConnectedOrUnknownIsRefusedWithTheApisCode() {
        assertThat(admin("runners", "create", "--name", "box 2").exit()).isZero();
        CliRun.Result offline = admin("runners", "drain", "box-2");
        assertThat(offline.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(offline.err()).contains("runner_not_connected").contains("has no open channel");
        CliRun.Result unknown = admin("runners", "resume", "nobody");
        assertThat(unknown.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(unknown.err()).contains("runner_not_found");
    }

    /** A project owner is not the admin: draining, resuming and seeing capabilities are refused, and nothing reaches the runner. */
    @Test
    void aTokenWithoutTheAdminRoleMayNotDrainResumeOrSetSpecs() {
        TestRunner runner = connected("box 3", null);
        Path owner = ownerToken();

        for (String[] args : List.of(
                new String[] {"runners", "drain", "box-3"},
                new String[] {"runners", "resume", "box-3"},
                new String[] {"runners", "capabilities", "box-3", "--spec", "large"})) {
            CliRun.Result refused = as(owner, args);
            assertThat(refused.exit()).as(String.join(" ", args)).isEqualTo(ExitCodes.CLIENT_ERROR);
            assertThat(refused.err()).contains("forbidden").contains("admin token");
        }
        // The first directive the runner sees is the admin's, later: the refused ones sent nothing.
        assertThat(admin("runners", "drain", "box-3", "--terminate").exit()).isZero();
        assertThat(runner.expect(ServerMessage.Drain.class).state()).isEqualTo(DrainState.TERMINATE);
        assertThat(admin("runners", "specs", "box-3", "--json").json().findValuesAsText("slug"))
                .containsExactly("small");
    }

    @Test
    void capabilitiesShowWhatTheRunnerDetectedAndSetExactlyTheSpecsItServes() {
        CliRun.Result offline = admin("runners", "create", "--name", "box 4", "--spec", "small");
        assertThat(offline.exit()).isZero();
        JsonNode before = admin("runners", "capabilities", "box-4", "--json").json();
        assertThat(before.path("connected").asBoolean()).isFalse();
        assertThat(before.path("specs").findValuesAsText("slug")).containsExactly("small");
        assertThat(admin("runners", "capabilities", "box-4").out())
                .contains("no (what it detected is known only while it is connected)");

        connected("vm box", new RunnerCapabilities("microvm", "qemu-microvm", "tcg").withBaselineImage(false));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> admin("runners", "capabilities", "vm-box", "--json")
                        .json()
                        .path("capabilities")
                        .path("executor")
                        .asText()
                        .equals("microvm"));
        CliRun.Result shown = admin("runners", "capabilities", "vm-box");
        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out())
                .contains("connected")
                .contains("yes")
                .contains("accelerator")
                .contains("tcg")
                .contains("baseline image  no (runc and microvm runners only)")
                .contains("small");

        JsonNode set = admin("runners", "capabilities", "vm-box", "--spec", "large", "--json")
                .json();
        assertThat(set.path("added").toString()).isEqualTo("[\"large\"]");
        assertThat(set.path("removed").toString()).isEqualTo("[\"small\"]");
        assertThat(set.path("specs").findValuesAsText("slug")).containsExactly("large");
        assertThat(admin("audit", "list", "--json").json().path("events").findValuesAsText("action"))
                .contains("runner.spec_added", "runner.spec_removed");

        // A spec that does not exist changes nothing, not even the specs named before it.
        CliRun.Result misspelt = admin("runners", "capabilities", "vm-box", "--spec", "small", "--spec", "lagre");
        assertThat(misspelt.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(misspelt.err()).contains("spec_not_found");
        assertThat(admin("runners", "specs", "vm-box", "--json").json().findValuesAsText("slug"))
                .containsExactly("large");

        JsonNode none = admin("runners", "capabilities", "vm-box", "--no-specs", "--json")
                .json();
        assertThat(none.path("specs")).isEmpty();
        assertThat(admin("runners", "capabilities", "vm-box").out()).contains("none: it takes no jobs");
        CliRun.Result both = admin("runners", "capabilities", "vm-box", "--no-specs", "--spec", "small");
        assertThat(both.exit()).isEqualTo(ExitCodes.USAGE);
    }
}
