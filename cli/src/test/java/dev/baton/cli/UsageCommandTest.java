package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestImages;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton usage} (issue 41) through the real CLI against a real server whose clock is
 * injected: a job runs three minutes on the real channel in November 2026, and the command shows
 * them as a table, JSON and CSV, for the server's current month by default or the period asked.
 */
class UsageCommandTest {
    @TempDir
    Path dir;

    final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T23:50:00Z"));
    BatonServer server;
    String url;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0), clock)
                .start();
        url = server.publicUrl();
        assertThat(admin("orgs", "create", "--name", "acme").exit()).isZero();
        assertThat(admin("orgs", "create", "--name", "quiet").exit()).isZero();
        assertThat(admin("projects", "create", "--name", "web", "--org", "acme").exit())
                .isZero();
        assertThat(admin(
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
                                "8GiB")
                        .exit())
                .isZero();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    CliRun.Result admin(String... args) {
        return as(dir.resolve("data").resolve("admin-token"), args);
    }

    CliRun.Result as(Path tokenFile, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int end = all.contains("--") ? all.indexOf("--") : all.size(); // before a command's own words
        all.addAll(end, List.of("--server", url, "--token-file", tokenFile.toString()));
        return CliRun.run(CliRun.environment(dir.resolve("home"), Map.of()), all.toArray(String[]::new));
    }

    /** A job of project web runs three minutes (heartbeats every 20 s of the injected clock bill them). */
    void threeMinutesOfWeb() throws Exception {
        JsonNode runner = admin("runners", "create", "--name", "box", "--spec", "small", "--json")
                .json();
        String project =
                admin("projects", "get", "web", "--json").json().get("uuid").asText();
        TestRunner channel = TestRunner.connect(
                URI.create(url.replace("http://", "ws://") + "/v0/runners/box/channel"),
                runner.get("key").asText());
        try {
            channel.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            String image = TestImages.push(dir.resolve("data"), ProjectUuid.parse(project), "", "v1", TestImages.BENCH);
            CliRun.Result run = admin(
                    "run", "--project", "web", "--spec", "small", "--image", image, "--adapter", "json", "--", "bench");
            assertThat(run.exit()).as(run.err()).isZero();
            ClaimedJob job = channel.expect(ServerMessage.Job.class).job();
            channel.send(new RunnerMessage.Running(job.uuid(), job.lease()));
            channel.expect(ServerMessage.Ack.class);
            for (int i = 0; i < 9; i++) {
                clock.advance(Duration.ofSeconds(20));
                channel.send(new RunnerMessage.Heartbeat(job.uuid(), job.lease()));
                channel.expect(ServerMessage.Ack.class);
            }
        } finally {
            channel.crash();
        }
    }

    @Test
    void theMonthsMinutesAsATableJsonAndCsvAndAnotherPeriodOnRequest() throws Exception {
        threeMinutesOfWeb();

        CliRun.Result table = admin("usage");
        assertThat(table.exit()).as(table.err()).isZero();
        assertThat(table.out())
                .contains("From 2026-11-01T00:00:00Z to 2026-12-01T00:00:00Z")
                .containsPattern("acme +web +3")
                .containsPattern("acme +\\(all\\) +3")
                .containsPattern("quiet +\\(all\\) +0");

        JsonNode json = admin("usage", "--org", "acme", "--json").json();
        assertThat(json).hasSize(1);
        assertThat(json.get(0).get("minutes").asLong()).isEqualTo(3);
        assertThat(json.get(0).at("/projects/0/slug").asText()).isEqualTo("web");

        CliRun.Result csv = admin("usage", "--csv");
        assertThat(csv.out())
                .isEqualTo("organization,project,from,to,minutes\n"
                        + "acme,web,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,3\n");

        JsonNode october = admin("usage", "--org", "acme", "--from", "2026-10-01", "--to", "2026-11-01", "--json")
                .json();
        assertThat(october.get(0).get("minutes").asLong()).isZero();
        assertThat(october.get(0).get("all_time_minutes").asLong()).isEqualTo(3);
        JsonNode december = admin("usage", "--org", "acme", "--from", "2026-12-01", "--json")
                .json();
        assertThat(december.get(0).get("to").asText()).isEqualTo("2027-01-01T00:00:00Z");

        CliRun.Result bad = admin("usage", "--from", "yesterday");
        assertThat(bad.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(bad.err()).contains("invalid_parameter");
        assertThat(admin("usage", "--csv", "--json").exit()).isNotZero();
    }

    /** Usage is for an organization's owners: another role is refused with the API's code when it names one, skipped when listing. */
    @Test
    void onlyTheOrganizationsOwnersMayReadItsUsage() {
        assertThat(admin("users", "create", "--name", "dev").exit()).isZero();
        assertThat(admin("members", "set", "--project", "web", "--user", "dev", "--role", "maintainer")
                        .exit())
                .isZero();
        Path file = dir.resolve("dev.token");
        assertThat(admin(
                                "tokens",
                                "create",
                                "--user",
                                "dev",
                                "--project",
                                "web",
                                "--role",
                                "maintainer",
                                "--secret-file",
                                file.toString())
                        .exit())
                .isZero();

        CliRun.Result named = as(file, "usage", "--org", "acme");
        assertThat(named.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(named.err()).containsAnyOf("forbidden", "organization_not_found");
        CliRun.Result listing = as(file, "usage", "--json");
        assertThat(listing.exit()).as(listing.err()).isZero();
        assertThat(listing.json()).isEmpty();
    }
}
