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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The CLI against a real server on an ephemeral port: each command, its output and its errors. */
class CliTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;
    Path tokenFile;

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
        tokenFile = dir.resolve("admin-token");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    Result baton(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        // connection options belong to the leaf subcommand
        int insertAt = all.indexOf("--") >= 0 ? all.indexOf("--") : all.size();
        all.addAll(insertAt, List.of("--server", url, "--token-file", tokenFile.toString(), "--json"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Baton.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(all.toArray(String[]::new));
        return new Result(exit, out.toString(), err.toString());
    }

    @Test
    void aNewcomersSessionFromRunnerToCanceledJob() {
        Result spec = baton(
                "specs",
                "create",
                "--name",
                "small",
                "--architecture",
                "x86_64",
                "--cpu",
                "2",
                "--memory",
                "4GiB",
                "--disk",
                "20GiB");
        assertThat(spec.exit()).as(spec.err()).isZero();
        assertThat(spec.json().path("memory").asLong()).isEqualTo(4L << 30);

        Result runner = baton("runners", "create", "--name", "box", "--spec", "small");
        assertThat(runner.exit()).as(runner.err()).isZero();
        assertThat(runner.json().path("key").asText()).startsWith("baton_runner_");
        assertThat(runner.err()).contains("shown only once");
        assertThat(baton("runners", "specs", "box").json().get(0).path("slug").asText())
                .isEqualTo("small");

        assertThat(baton("runners", "list").json()).hasSize(1);
        assertThat(baton("runners", "get", "box").json().path("slug").asText()).isEqualTo("box");
        String newKey = baton("runners", "rotate-key", "box").json().path("key").asText();
        assertThat(newKey).isNotEqualTo(runner.json().path("key").asText());
        assertThat(baton("runners", "archive", "box").json().has("archived")).isTrue();
        assertThat(baton("runners", "list").json()).isEmpty();
        assertThat(baton("runners", "list", "--archived").json()).hasSize(1);
        assertThat(baton("runners", "restore", "box").json().has("archived")).isFalse();
        // Releasing a runner that is not quarantined only restarts its count; an unknown one is refused.
        Result release = baton("runners", "release", "box");
        assertThat(release.exit()).as(release.err()).isZero();
        assertThat(release.json().path("slug").asText()).isEqualTo("box");
        assertThat(release.json().has("quarantined")).isFalse();
        // Labels the admin gives a runner: shown by get and list, refused when malformed, cleared.
        Result labelled = baton("runners", "label", "box", "disk=nvme", "kernel=6.8");
        assertThat(labelled.exit()).as(labelled.err()).isZero();
        assertThat(labelled.json().path("labels").path("disk").asText()).isEqualTo("nvme");
        assertThat(labelled.json().path("labels_set").path("kernel").asText()).isEqualTo("6.8");
        assertThat(baton("runners", "list")
                        .json()
                        .get(0)
                        .path("labels")
                        .path("kernel")
                        .asText())
                .isEqualTo("6.8");
        Result badLabel = baton("runners", "label", "box", "no equals sign");
        assertThat(badLabel.exit()).isNotZero();
        assertThat(badLabel.err()).contains("key=value");
        assertThat(baton("runners", "label", "box", "--clear")
                        .json()
                        .path("labels")
                        .isEmpty())
                .isTrue();
        Result unknownRelease = baton("runners", "release", "nope");
        assertThat(unknownRelease.exit()).isEqualTo(1);
        assertThat(unknownRelease.err()).contains("runner_not_found");

        assertThat(baton("orgs", "create", "--name", "acme", "--plan", "team")
                        .json()
                        .path("plan")
                        .asText())
                .isEqualTo("team");
        assertThat(baton("projects", "create", "--name", "web", "--org", "acme").exit())
                .isZero();
        // A canary is only for a quarantined runner: the server's refusal is shown.
        Result canary = baton("runners", "canary", "box", "--project", "web", "--spec", "small", "--", "true");
        assertThat(canary.exit()).isEqualTo(1);
        assertThat(canary.err()).contains("runner_not_quarantined");

        // An image the project's registry never received can never run: refused, nothing created.
        Result unknownImage = baton(
                "run", "--project", "web", "--image", "sha256:" + "cd".repeat(32), "--spec", "small", "--", "true");
        assertThat(unknownImage.exit()).isEqualTo(1);
        assertThat(unknownImage.err()).contains("image_not_found").contains("baton image push");
        assertThat(baton("jobs", "list", "--project", "web").json().path("jobs"))
                .isEmpty();

        // A command-only run (for a trusted runner's process executor) needs no image.
        Result run = baton(
                "run",
                "--project",
                "web",
                "--spec",
                "small",
                "--env",
                "A=1",
                "--file-path",
                "out.json",
                "--timeout",
                "60",
                "--require-label",
                "disk=nvme",
                "--prefer-label",
                "zone=a",
                "--",
                "sh",
                "-c",
                "echo hi");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode job = run.json().path("job");
        assertThat(job.path("require_labels").path("disk").asText()).isEqualTo("nvme");
        assertThat(job.path("prefer_labels").path("zone").asText()).isEqualTo("a");
        assertThat(job.path("config").path("cmd").toString()).isEqualTo("[\"sh\",\"-c\",\"echo hi\"]");
        assertThat(job.path("config").path("env").path("A").asText()).isEqualTo("1");
        assertThat(job.path("priority").asInt()).isEqualTo(200);
        String uuid = job.path("uuid").asText();

        assertThat(baton("jobs", "list", "--project", "web", "--status", "pending")
                        .json()
                        .path("jobs"))
                .hasSize(1);
        assertThat(baton("jobs", "get", "--project", "web", uuid)
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("pending");
        assertThat(baton("jobs", "cancel", "--project", "web", uuid)
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("canceled");

        Result again = baton("jobs", "cancel", "--project", "web", uuid);
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("job_not_cancelable");

        Result inUse = baton("specs", "delete", "small");
        assertThat(inUse.exit()).isEqualTo(1);
        assertThat(inUse.err()).contains("spec_in_use");
    }

    @Test
    void directRunsReadResultFiles() throws Exception {
        baton("orgs", "create", "--name", "acme");
        baton("projects", "create", "--name", "web", "--org", "acme");
        Path bmf = dir.resolve("bmf.json");
        Files.writeString(bmf, "{\"bench\":{\"latency\":{\"value\":3}}}");
        Result run = baton(
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
        assertThat(run.json()
                        .path("report")
                        .path("results")
                        .path("bench")
                        .path("latency")
                        .path("value")
                        .asInt())
                .isEqualTo(3);
    }

    @Test
    void schedulesAreCreatedListedPausedResumedAndDeleted() throws Exception {
        baton("orgs", "create", "--name", "acme");
        baton("projects", "create", "--name", "web", "--org", "acme");
        Path bmf = dir.resolve("bmf.json");
        Files.writeString(bmf, "{\"bench\":{\"latency\":{\"value\":3}}}");
        Result created = baton(
                "schedules",
                "create",
                "--name",
                "nightly",
                "--cron",
                "0 3 * * *",
                "--timezone",
                "Europe/Berlin",
                "--project",
                "web",
                "--results",
                bmf.toString(),
                "--start-time",
                "2026-01-01T00:00:00Z",
                "--end-time",
                "2026-01-01T00:00:05Z");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.json().path("cron").asText()).isEqualTo("0 3 * * *");
        assertThat(created.json().path("timezone").asText()).isEqualTo("Europe/Berlin");
        assertThat(created.json().at("/run/project").asText()).isEqualTo("web");
        assertThat(created.json().at("/run/results/0").asText()).contains("latency");
        Result once = baton(
                "schedules",
                "create",
                "--name",
                "later",
                "--at",
                "2099-01-01T00:00:00Z",
                "--project",
                "web",
                "--results",
                bmf.toString(),
                "--start-time",
                "2026-01-01T00:00:00Z",
                "--end-time",
                "2026-01-01T00:00:05Z");
        assertThat(once.exit()).as(once.err()).isZero();
        assertThat(baton("schedules", "list").json())
                .extracting(n -> n.path("name").asText())
                .containsExactly("later", "nightly");
        assertThat(baton("schedules", "pause", "nightly").json().path("state").asText())
                .isEqualTo("paused");
        assertThat(baton("schedules", "resume", "nightly").json().path("state").asText())
                .isEqualTo("active");
        assertThat(baton("schedules", "get", "later").json().path("next_fire").asText())
                .isEqualTo("2099-01-01T00:00:00Z");
        assertThat(baton("schedules", "delete", "later").exit()).isZero();
        assertThat(baton("schedules", "get", "later").err()).contains("schedule_not_found");
        Result neither = baton("schedules", "create", "--name", "x", "--project", "web");
        assertThat(neither.exit()).isNotZero();
        assertThat(neither.err()).contains("--cron or --at");
    }

    @Test
    void serverErrorsAreShownWithTheirCodeAndField() {
        Result r = baton("run", "--project", "nope", "--image", "sha256:" + "cd".repeat(32));
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("spec_required").contains("field spec");
    }

    @Test
    void aMissingTokenAndAnUnreachableServerAreExplained() throws Exception {
        StringWriter err = new StringWriter();
        CommandLine cli = Baton.commandLine();
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(
                "runners",
                "list",
                "--server",
                url,
                "--token-file",
                dir.resolve("missing").toString());
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("no token: run 'baton login'");

        String token = Files.readString(tokenFile).strip();
        server.close();
        StringWriter err2 = new StringWriter();
        CommandLine cli2 = Baton.commandLine();
        cli2.setErr(new PrintWriter(err2));
        assertThat(cli2.execute("runners", "list", "--server", url, "--token", token))
                .isEqualTo(1);
        assertThat(err2.toString()).contains("cannot connect");
    }

    @Test
    void serverOptionsCoverEveryConfigKey() {
        ServerOptions options = new ServerOptions();
        new CommandLine(options)
                .parseArgs(
                        "--host",
                        "h",
                        "--port",
                        "1",
                        "--data-dir",
                        "d",
                        "--database-url",
                        "u",
                        "--public-url",
                        "p",
                        "--request-body-max-bytes",
                        "1",
                        "--registry-max-body-bytes",
                        "1",
                        "--admin-token",
                        "t",
                        "--heartbeat-timeout",
                        "1s",
                        "--acceptance-timeout",
                        "1s",
                        "--job-timeout-grace",
                        "1s",
                        "--cancel-deadline",
                        "1s",
                        "--default-poll-timeout",
                        "1s",
                        "--pull-token-ttl",
                        "1s",
                        "--max-requeues",
                        "1",
                        "--heartbeat-flush-interval",
                        "1s",
                        "--node-id",
                        "n",
                        "--node-timeout",
                        "1s",
                        "--token-submissions-per-minute",
                        "1",
                        "--audit-retention",
                        "1d",
                        "--blob-store",
                        "s3",
                        "--blob-dir",
                        "b",
                        "--s3-endpoint",
                        "http://e",
                        "--s3-region",
                        "r",
                        "--s3-bucket",
                        "b",
                        "--s3-prefix",
                        "p",
                        "--s3-access-key-id",
                        "i",
                        "--s3-secret-access-key",
                        "s",
                        "--s3-path-style",
                        "true",
                        "--s3-part-size",
                        "8MiB",
                        "--quarantine-threshold",
                        "3",
                        "--quarantine-window",
                        "1h",
                        "--advertise-url",
                        "http://a",
                        "--image-affinity",
                        "false",
                        "--nats-url",
                        "nats://n:4222",
                        "--dispatch-transport",
                        "nats",
                        "--nats-specs",
                        "a,b",
                        "--lease-ttl",
                        "60s",
                        "--nats-credentials",
                        "/etc/baton/nats.nk",
                        "--trusted-proxies",
                        "10.0.0.0/8",
                        "--runner-connects-per-minute",
                        "6",
                        "--runner-connect-burst",
                        "3",
                        "--noise-calibration-interval",
                        "6h");
        assertThat(options.flags().keySet())
                .containsExactlyInAnyOrderElementsOf(dev.baton.core.config.ConfigLoader.KEYS);
    }

    @Test
    void aServerThatCannotBindSaysWhy() {
        StringWriter err = new StringWriter();
        CommandLine cli = Baton.commandLine();
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(
                "server",
                "--host",
                "127.0.0.1",
                "--port",
                String.valueOf(server.port()),
                "--data-dir",
                dir.resolve("other").toString());
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("cannot start the server").contains(String.valueOf(server.port()));
    }

    @Test
    void badServerFlagsExitWithAClearMessage() {
        StringWriter err = new StringWriter();
        CommandLine cli = Baton.commandLine();
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute("server", "--port", "http", "--data-dir", dir.toString());
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("--port").contains("whole number");
    }
}
