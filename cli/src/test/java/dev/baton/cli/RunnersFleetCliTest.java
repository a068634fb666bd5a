package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.core.config.ShippedVersion;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 41 in the CLI, against a real server on SQLite and the real agent of {@code baton up}:
 * {@code runners list} shows the machine, version and whether it is behind, a column each;
 * {@code runners update} starts a roll, prints each runner's progress and, when the runner does
 * not rejoin at the new version before the timeout passes on the server's clock, exits 3 naming it.
 */
class RunnersFleetCliTest {
    /** The server's clock, moved by the test: the roll's timeout passes without waiting for it. */
    static final class TestClock extends Clock {
        private volatile Instant now = Instant.now();

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @TempDir
    Path dir;

    final TestClock clock = new TestClock();
    BatonServer server;
    LocalInstallation local;
    CliEnvironment environment;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0), clock)
                .start();
        String token = Files.readString(dir.resolve("data/admin-token")).strip();
        local = LocalInstallation.start(server.publicUrl(), token, dir.resolve("data"));
        environment = CliRun.environment(dir, Map.of("BATON_SERVER", server.publicUrl(), "BATON_TOKEN", token));
    }

    @AfterEach
    void stop() {
        if (local != null) local.close();
        if (server != null) server.close();
    }

    CliRun.Result baton(String... args) {
        return CliRun.run(environment, args);
    }

    private JsonNode localRunner() {
        for (JsonNode r : baton("runners", "list", "--json").json())
            if ("local".equals(r.path("slug").asText())) return r;
        throw new AssertionError("no local runner");
    }

    @Test
    void runnersListShowsEachRunnersMachineAndWhetherItIsBehind() {
        await().until(() -> localRunner().hasNonNull("machine"));
        JsonNode runner = localRunner();
        long pid = ProcessHandle.current().pid();
        assertThat(runner.at("/machine/pid").asLong())
                .as("the agent runs in this JVM")
                .isEqualTo(pid);
        assertThat(runner.at("/machine/address").asText()).isEqualTo("127.0.0.1");
        assertThat(runner.get("version").asText()).isEqualTo(ShippedVersion.value());
        assertThat(runner.get("behind").asBoolean())
                .as("the agent of this distribution is not behind")
                .isFalse();

        CliRun.Result list = baton("runners", "list");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out())
                .containsPattern("SLUG +NAME +UUID +VERSION +BEHIND +OS +ARCH +HOST +PID +AGENT_STARTED +ADDRESS")
                .containsPattern("LABELS +NOISE +QUARANTINED")
                .contains(runner.at("/machine/host").asText())
                .contains(" " + pid + " ")
                .contains("127.0.0.1");
    }

    @Test
    void runnersUpdatePrintsProgressAndExitsNonZeroNamingTheRunnerThatDidNotComeBack() throws Exception {
        await().until(() -> localRunner().hasNonNull("machine"));
        CompletableFuture<CliRun.Result> update = CompletableFuture.supplyAsync(() -> baton(
                "runners",
                "update",
                "--runner",
                "local",
                "--version",
                "9.9.9",
                "--url",
                "https://downloads.invalid/baton.jar",
                "--checksum",
                "c".repeat(64),
                "--timeout",
                "5m",
                "--poll-interval",
                "50ms"));
        // The local agent cannot update itself (it is updated with the server), so it never rejoins at 9.9.9.
        await().until(() -> {
            JsonNode rolls = baton("runners", "rolls", "--json").json();
            return rolls.size() == 1
                    && "updating".equals(rolls.at("/0/runners/0/state").asText());
        });
        clock.advance(Duration.ofMinutes(5));
        CliRun.Result result = update.get(60, TimeUnit.SECONDS);
        assertThat(result.exit()).as(result.out() + result.err()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(result.err())
                .contains("1 runner(s) to version 9.9.9")
                .contains("local updating: drained and told to update")
                .contains("failed: runner local did not rejoin at version 9.9.9");

        JsonNode roll = baton("runners", "rolls", "--json").json().get(0);
        assertThat(roll.get("state").asText()).isEqualTo("failed");
        CliRun.Result shown = baton("runners", "rolls", roll.get("uuid").asText());
        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("did not rejoin");
    }

    @Test
    void runnersNoiseAsksTheConnectedRunnerAndSaysWhyNotForAnUnknownOne() {
        await().until(() -> localRunner().hasNonNull("machine"));
        CliRun.Result asked = baton("runners", "noise", "local");
        assertThat(asked.exit()).as(asked.err()).isZero();
        assertThat(asked.err()).contains("Runner local asked to measure its noise");
        // Its ready (30 s) is still outstanding: the runner has not measured yet.
        assertThat(asked.out()).contains("Runner local has no noise calibration yet.");

        CliRun.Result unknown = baton("runners", "noise", "nosuch");
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.err()).contains("no runner 'nosuch'");
    }
}
