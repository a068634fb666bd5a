package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Output for people (aligned tables) and for machines (--json), and where the server and token come from. */
class ClientOutputTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;
    String token;

    @BeforeEach
    void start() throws Exception {
        server = BatonServer.builder(ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0))
                .start();
        url = "http://127.0.0.1:" + server.port();
        token = Files.readString(dir.resolve("data/admin-token")).strip();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    CliRun.Result baton(String... args) {
        return CliRun.run(CliRun.environment(dir, Map.of("BATON_SERVER", url, "BATON_TOKEN", token)), args);
    }

    @Test
    void listsAreAlignedTablesAndJsonParses() {
        for (String[] spec :
                List.of(new String[] {"small", "2", "4GiB"}, new String[] {"a much longer spec name", "16", "64GiB"})) {
            CliRun.Result created = baton(
                    "specs",
                    "create",
                    "--name",
                    spec[0],
                    "--architecture",
                    "x86_64",
                    "--cpu",
                    spec[1],
                    "--memory",
                    spec[2],
                    "--disk",
                    "20GiB");
            assertThat(created.exit()).as(created.err()).isZero();
        }
        CliRun.Result table = baton("specs", "list");
        assertThat(table.exit()).as(table.err()).isZero();
        List<String> lines = table.out().lines().toList();
        assertThat(lines.get(0)).startsWith("SLUG").contains("NAME").contains("CPU");
        // every column starts at the same offset on every line
        int nameColumn = lines.get(0).indexOf("NAME");
        for (String line : lines.subList(1, lines.size()))
            assertThat(line.charAt(nameColumn - 1)).isEqualTo(' ');
        assertThat(lines.get(1).substring(nameColumn)).startsWith("small").doesNotStartWith(" ");
        assertThat(lines.get(2).substring(nameColumn)).startsWith("a much longer spec name");

        for (String[] command : List.of(
                new String[] {"specs", "list", "--json"},
                new String[] {"runners", "list", "--json"},
                new String[] {"orgs", "list", "--json"},
                new String[] {"projects", "list", "--json"},
                new String[] {"specs", "get", "small", "--json"})) {
            CliRun.Result r = baton(command);
            assertThat(r.exit()).as(String.join(" ", command) + r.err()).isZero();
            assertThat(r.json()).as(String.join(" ", command)).isNotNull();
        }
    }

    @Test
    void latestNamesTheProjectsNewestJob() {
        baton("orgs", "create", "--name", "acme", "--plan", "team");
        baton("projects", "create", "--name", "web", "--org", "acme");
        baton(
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
                "1GiB");
        CliRun.Result none = baton("jobs", "get", "--project", "web", "latest");
        assertThat(none.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(none.err()).contains("project web has no jobs yet");

        baton("run", "--project", "web", "--spec", "small", "--", "echo", "first");
        String newest = baton("run", "--project", "web", "--spec", "small", "--json", "--", "echo", "second")
                .json()
                .at("/job/uuid")
                .asText();
        CliRun.Result got = baton("jobs", "get", "--project", "web", "latest", "--json");
        assertThat(got.exit()).as(got.err()).isZero();
        assertThat(got.json().path("uuid").asText()).isEqualTo(newest);
        // (`jobs logs … latest` resolves the same way; this bare server has no log routes, the
        // README walkthrough test runs it against the whole server.)
    }

    @Test
    void jobsGetShowsTheReportsMetricsAndReportsGetReadsThem() throws Exception {
        baton("orgs", "create", "--name", "acme");
        baton("projects", "create", "--name", "web", "--org", "acme");
        Path bmf = Files.writeString(
                dir.resolve("bmf.json"), "{\"parse\":{\"latency\":{\"value\":3.5,\"upper_value\":4}}}");
        CliRun.Result run = baton(
                "run",
                "--project",
                "web",
                "--results",
                bmf.toString(),
                "--start-time",
                "2026-01-01T00:00:00Z",
                "--end-time",
                "2026-01-01T00:00:05Z");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).startsWith("Stored report ").containsPattern("(?m)^parse +latency +3\\.5 +- +4$");
        String report = run.out().lines().findFirst().orElseThrow().replaceAll("Stored report (\\S+)\\.", "$1");

        CliRun.Result get = baton("reports", "get", "--project", "web", report);
        assertThat(get.exit()).as(get.err()).isZero();
        assertThat(get.out())
                .contains("adapter")
                .containsPattern("BENCHMARK +MEASURE +VALUE +LOWER +UPPER")
                .contains("latency");
        assertThat(baton("reports", "get", "--project", "web", report, "--json")
                        .json()
                        .path("uuid")
                        .asText())
                .isEqualTo(report);
    }

    @Test
    void aPendingJobShowsWhereItStandsAndWhy() {
        // the fields of the wave 2 contract, as the server will send them for a pending job
        JsonNode job = CliRun.parse(
                "{\"status\":\"pending\",\"queue_position\":3,\"predicted_start\":\"2026-01-01T00:01:30Z\","
                        + "\"pending_reason\":{\"code\":\"runners_busy\",\"message\":\"2 jobs are ahead on the runners serving 'small'\",\"ahead\":2}}");
        assertThat(JobStatusText.describe(job, null, null, Instant.parse("2026-01-01T00:00:00Z")))
                .isEqualTo(
                        "pending · #3 in queue · starts in ~1m30s · 2 jobs are ahead on the runners serving 'small'");
        JsonNode running = CliRun.parse("{\"status\":\"running\",\"started\":\"2026-01-01T00:00:00Z\"}");
        assertThat(JobStatusText.describe(running, "box", "step 3/10", Instant.parse("2026-01-01T00:01:05Z")))
                .isEqualTo("running on box 1m05s · step 3/10");
        assertThat(JobStatusText.describe(CliRun.parse("{\"status\":\"claimed\"}"), "box", null, Instant.EPOCH))
                .isEqualTo("claimed by box · preparing");
    }

    @Test
    void serverAndTokenComeFromFlagsThenEnvironmentThenTheConfigFile() throws Exception {
        Path config = Files.createDirectories(dir.resolve("home/.config/baton")).resolve("config");
        Files.writeString(config, "# written by a test\nserver = " + url + "\ntoken = \"" + token + "\"\n");
        CliEnvironment fromFile = CliRun.environment(dir.resolve("home"), Map.of());
        assertThat(CliRun.run(fromFile, "specs", "list", "--json").exit()).isZero();

        // the environment wins over the file, and the flag over both
        Map<String, String> env = new HashMap<>(Map.of("BATON_TOKEN", "wrong"));
        CliRun.Result envWins = CliRun.run(CliRun.environment(dir.resolve("home"), env), "specs", "list");
        assertThat(envWins.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(envWins.err()).contains("unauthorized");
        assertThat(CliRun.run(CliRun.environment(dir.resolve("home"), env), "specs", "list", "--token", token)
                        .exit())
                .isZero();

        // XDG_CONFIG_HOME moves the file
        CliEnvironment xdg = CliRun.environment(
                dir.resolve("elsewhere"),
                Map.of("XDG_CONFIG_HOME", dir.resolve("home/.config").toString()));
        assertThat(CliRun.run(xdg, "specs", "list").exit()).isZero();
    }

    @Test
    void aRunnerNameOrSlugInUseIsRefusedWithWhatToDo() {
        assertThat(baton("runners", "create", "--name", "box", "--slug", "box").exit())
                .isZero();
        CliRun.Result again = baton("runners", "create", "--name", "box", "--slug", "box");
        assertThat(again.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(again.err().strip())
                .startsWith("baton: runner_name_taken")
                .contains("choose another --name or --slug")
                .contains("baton runners list --search box")
                .doesNotContain("\n");
        CliRun.Result slugOnly = baton("runners", "create", "--name", "other box", "--slug", "box");
        assertThat(slugOnly.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(slugOnly.err().strip()).startsWith("baton: slug_taken").contains("choose another --name or --slug");
    }
}
