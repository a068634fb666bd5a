package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.image.TestImages;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retries that tell the machine from the job, and {@code baton jobs rerun} (issue 41), end to end:
 * a real server on SQLite, the local runner of {@code baton up} (the real agent over the real
 * channel, process executor, reporting each failure's code) and the real CLI.
 */
class RetryAndRerunTest {
    @TempDir
    Path dir;

    BatonServer server;
    LocalInstallation local;
    String image;
    CliEnvironment environment;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0), Clock.systemUTC())
                .start();
        String url = server.publicUrl();
        String token = Files.readString(dir.resolve("data/admin-token")).strip();
        local = LocalInstallation.start(url, token, dir.resolve("data"));
        environment = CliRun.environment(dir, Map.of("BATON_SERVER", url, "BATON_TOKEN", token));
        Path layout = TestImages.layout(Files.createDirectories(dir.resolve("image")), "retry");
        CliRun.Result pushed = CliRun.run(
                environment,
                "image",
                "push",
                layout.toString(),
                "local/sample:latest",
                "--token",
                token,
                "--server",
                url);
        assertThat(pushed.exit()).as(pushed.err()).isZero();
        image = pushed.out().strip();
    }

    @AfterEach
    void stop() {
        if (local != null) local.close();
        if (server != null) server.close();
    }

    CliRun.Result baton(String... args) {
        return CliRun.run(environment, args);
    }

    CliRun.Result run(String... tail) {
        List<String> args = new ArrayList<>(
                List.of("run", "--project", "local", "--spec", "local", "--image", image, "--poll-interval", "50ms"));
        args.addAll(List.of(tail));
        return baton(args.toArray(String[]::new));
    }

    JsonNode job(String uuid) {
        return baton("jobs", "get", "--project", "local", "--json", uuid).json();
    }

    @Test
    void theBenchmarksOwnExitIsNotRetriedWhenOnlyTheMachinesFaultsAre() {
        CliRun.Result r =
                run("--wait", "--retry", "3", "--retry-on", "runner_lost,infrastructure", "--", "sh", "-c", "exit 1");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(r.out()).containsPattern("(?m)^1 +local +failure +1 +no \\(not_in_retry_on\\)$");
        JsonNode job = job("latest");
        assertThat(job.path("attempt").asInt()).isEqualTo(1);
        assertThat(job.at("/attempts/0/end_reason").asText()).isEqualTo("failure");
        assertThat(job.at("/attempts/0/retried").asBoolean()).isFalse();
        assertThat(job.at("/retry/on").toString()).isEqualTo("[\"runner_lost\",\"infrastructure\"]");
    }

    @Test
    void aFailureIsRetriedUntilTheAttemptsAreSpentAndAFinalExitCodeNever() {
        CliRun.Result r = run(
                "--wait",
                "--retry",
                "2",
                "--retry-on",
                "failure",
                "--final-exit-codes",
                "7",
                "--",
                "sh",
                "-c",
                "exit 1");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(r.out()).containsPattern("(?m)^1 +local +failure +1 +yes$");
        assertThat(r.out()).containsPattern("(?m)^2 +local +failure +1 +no \\(attempts_exhausted\\)$");

        CliRun.Result last = run(
                "--wait",
                "--retry",
                "2",
                "--retry-on",
                "failure",
                "--final-exit-codes",
                "2,7",
                "--",
                "sh",
                "-c",
                "exit 7");
        assertThat(last.exit()).as(last.out() + last.err()).isEqualTo(ExitCodes.JOB_FAILED);
        JsonNode job = job("latest");
        assertThat(job.path("attempts").size()).isEqualTo(1);
        assertThat(job.at("/attempts/0/not_retried").asText()).isEqualTo("final_exit_code");
        assertThat(job.at("/attempts/0/exit_code").asInt()).isEqualTo(7);
    }

    @Test
    void aRetryOnTheServerDoesNotKnowIsRefusedWithItsField() {
        CliRun.Result r = run("--json", "--retry", "2", "--retry-on", "disk", "--", "true");
        assertThat(r.exit()).isNotZero();
        assertThat(r.out() + r.err()).contains("invalid_field").contains("retry.on[0]");
        assertThat(baton("jobs", "list", "--project", "local", "--json").json().path("jobs"))
                .as("nothing stored")
                .isEmpty();
    }

    @Test
    void rerunSubmitsTheJobAgainWithItsConfigurationAndWaitsForIt() {
        CliRun.Result first = run(
                "--wait",
                "--retry",
                "2",
                "--retry-on",
                "infrastructure",
                "--iterations",
                "2",
                "--",
                "sh",
                "-c",
                "echo '{\"parse\":{\"latency\":{\"value\":41.7}}}'");
        assertThat(first.exit()).as(first.err()).isZero();
        String original = job("latest").path("uuid").asText();

        CliRun.Result rerun = baton("jobs", "rerun", "--project", "local", original);
        assertThat(rerun.exit()).as(rerun.err()).isZero();
        assertThat(rerun.out()).startsWith("Submitted job ").contains("a re-run of " + original);
        String again = rerun.out().substring("Submitted job ".length()).split(" ")[0];
        assertThat(again).isNotEqualTo(original);
        JsonNode copy = job(again);
        assertThat(copy.at("/config/cmd").toString())
                .isEqualTo(job(original).at("/config/cmd").toString());
        assertThat(copy.at("/config/iterations").asInt()).isEqualTo(2);
        assertThat(copy.at("/retry/max_attempts").asInt()).isEqualTo(2);
        assertThat(copy.at("/retry/on").toString()).isEqualTo("[\"infrastructure\"]");

        CliRun.Result waited =
                baton("jobs", "rerun", "--project", "local", "--wait", "--poll-interval", "50ms", "latest");
        assertThat(waited.exit()).as(waited.err()).isZero();
        assertThat(waited.out()).contains("processed").containsPattern("(?m)^0 +parse +latency +41\\.7");
        assertThat(waited.err()).contains("a re-run of " + again);

        CliRun.Result missing = baton("jobs", "rerun", "--project", "local", "00000000-0000-4000-8000-000000000000");
        assertThat(missing.exit()).isNotZero();
        assertThat(missing.err()).contains("job_not_found");
    }
}
