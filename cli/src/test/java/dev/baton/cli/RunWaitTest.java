package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.image.TestImages;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton run --wait} end to end: a real server on SQLite, the local runner of {@code baton up}
 * (the real agent over the real channel, process executor) and an image really pushed to the
 * server's registry (the process executor ignores it; the server checks it exists).
 */
class RunWaitTest {
    @TempDir
    Path dir;

    BatonServer server;
    LocalInstallation local;
    String url;
    String token;
    String image;
    CliEnvironment environment;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0), Clock.systemUTC())
                .start();
        url = server.publicUrl();
        token = Files.readString(dir.resolve("data/admin-token")).strip();
        local = LocalInstallation.start(url, token, dir.resolve("data"));
        environment = CliRun.environment(dir, Map.of("BATON_SERVER", url, "BATON_TOKEN", token));
        Path layout = TestImages.layout(Files.createDirectories(dir.resolve("image")), "run-wait");
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

    List<String> run(String... tail) {
        List<String> args = new ArrayList<>(
                List.of("run", "--project", "local", "--spec", "local", "--image", image, "--poll-interval", "50ms"));
        args.addAll(List.of(tail));
        return args;
    }

    @Test
    void aProcessedJobPrintsItsMetricsAndExitsZero() {
        CliRun.Result r = baton(run(
                        "--wait",
                        "--iterations",
                        "2",
                        "--",
                        "sh",
                        "-c",
                        "echo '{\"parse\":{\"latency\":{\"value\":42.5,\"lower_value\":40,\"upper_value\":45}}}'")
                .toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("processed");
        // one row per iteration, counted from 0, aligned under the headers
        assertThat(r.out()).containsPattern("ITERATION +BENCHMARK +MEASURE +VALUE +LOWER +UPPER");
        assertThat(r.out()).containsPattern("(?m)^0 +parse +latency +42\\.5 +40 +45$");
        assertThat(r.out()).containsPattern("(?m)^1 +parse +latency +42\\.5 +40 +45$");
        // not at a terminal: status lines are whole lines, one per change, no escape codes
        assertThat(r.err()).contains("Submitted job").doesNotContain("\033[");
    }

    @Test
    void aJmhJobThroughTheJavaJmhAdapterPrintsItsMetricsAndExitsZero() {
        // JMH's JSON result format (-rf json): an array of runs with a primaryMetric per benchmark.
        String jmh = "[{\"jmhVersion\":\"1.37\",\"benchmark\":\"org.example.Sort.quick\",\"mode\":\"avgt\",\"forks\":1,"
                + "\"primaryMetric\":{\"score\":2.5,\"scoreError\":0.25,\"scoreConfidence\":[2.25,2.75],\"scoreUnit\":\"us/op\"}}]";
        CliRun.Result r = baton(run("--wait", "--adapter", "java_jmh", "--", "sh", "-c", "echo '" + jmh + "'")
                .toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.OK);
        assertThat(r.out()).contains("processed");
        // 2.5 us/op is 2,500 ns of latency; the confidence interval gives the bounds.
        assertThat(r.out()).containsPattern("(?m)^org\\.example\\.Sort\\.quick +latency +2500 +2250 +2750$");
    }

    @Test
    void withJsonTheJobAndReportAreOneDocument() {
        CliRun.Result r = baton(run("--wait", "--json", "--", "sh", "-c", "echo '{\"b\":{\"m\":{\"value\":7}}}'")
                .toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode both = r.json();
        assertThat(both.at("/job/status").asText()).isEqualTo("processed");
        assertThat(both.at("/report/uuid").asText())
                .isEqualTo(both.at("/job/report").asText());
        assertThat(r.err()).isEmpty();
    }

    @Test
    void aFailedJobExitsThreeWithItsError() {
        CliRun.Result r =
                baton(run("--wait", "--", "sh", "-c", "echo oops >&2; exit 7").toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.JOB_FAILED);
        String last = r.err().strip().lines().reduce((a, b) -> b).orElseThrow();
        assertThat(last).startsWith("baton: job ").contains(" failed").contains("exited with code 7");
    }

    @Test
    void aJobWhoseOutputDoesNotParseExitsSevenWithTheReportError() {
        CliRun.Result r =
                baton(run("--wait", "--", "sh", "-c", "echo 'not a metric'").toArray(String[]::new));
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.REPORT_ERROR);
        assertThat(r.out()).contains("completed");
        String last = r.err().strip().lines().reduce((a, b) -> b).orElseThrow();
        assertThat(last).startsWith("baton: job ").contains("could not be read").contains("adapter json");
    }

    @Test
    void aJobCanceledWhileRunningExitsFourAndSaysSo() throws Exception {
        CompletableFuture<CliRun.Result> waiting = CompletableFuture.supplyAsync(
                () -> baton(run("--wait", "--", "sleep", "60").toArray(String[]::new)));
        String job = await().atMost(Duration.ofSeconds(60)).until(() -> runningJob(), j -> j != null);
        CliRun.Result cancel = baton("jobs", "cancel", "--project", "local", job);
        assertThat(cancel.exit()).as(cancel.err()).isZero();
        assertThat(cancel.out()).contains("Job " + job);
        CliRun.Result r = waiting.get();
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.JOB_CANCELED);
        assertThat(r.err()).contains("job " + job + " was canceled");
    }

    private String runningJob() {
        JsonNode jobs = baton("jobs", "list", "--project", "local", "--status", "running", "--json")
                .json()
                .path("jobs");
        return jobs.isEmpty() ? null : jobs.get(0).path("uuid").asText();
    }

    @Test
    void aJobNoRunnerServesTimesOutWithExitFiveAndSaysWhereItIs() {
        assertThat(baton(
                                "specs",
                                "create",
                                "--name",
                                "nobody",
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
        CliRun.Result r = baton(
                "run",
                "--project",
                "local",
                "--spec",
                "nobody",
                "--image",
                image,
                "--wait",
                "--wait-timeout",
                "300ms",
                "--poll-interval",
                "50ms",
                "--",
                "true");
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.WAIT_TIMEOUT);
        assertThat(r.err())
                .contains("gave up waiting")
                .contains("is still pending")
                .contains("baton jobs get --project local");
    }

    @Test
    void aServerThatGoesAwayExitsSix() throws Exception {
        baton(
                "specs",
                "create",
                "--name",
                "nobody",
                "--architecture",
                "x86_64",
                "--cpu",
                "1",
                "--memory",
                "1GiB",
                "--disk",
                "1GiB");
        CompletableFuture<CliRun.Result> waiting = CompletableFuture.supplyAsync(() -> baton(
                "run",
                "--project",
                "local",
                "--spec",
                "nobody",
                "--image",
                image,
                "--wait",
                "--reconnect-for",
                "200ms",
                "--poll-interval",
                "50ms",
                "--",
                "true"));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !baton("jobs", "list", "--project", "local", "--status", "pending", "--json")
                        .json()
                        .path("jobs")
                        .isEmpty());
        local.close();
        local = null;
        server.close();
        CliRun.Result r = waiting.get();
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.LOST_SERVER);
        assertThat(r.err()).contains("lost the server").contains("may still run");
    }

    @Test
    void ctrlCWithoutATerminalDetachesAndSaysHowToFollow() throws Exception {
        baton(
                "specs",
                "create",
                "--name",
                "nobody",
                "--architecture",
                "x86_64",
                "--cpu",
                "1",
                "--memory",
                "1GiB",
                "--disk",
                "1GiB");
        JsonNode submitted = baton(
                        "run", "--project", "local", "--spec", "nobody", "--image", image, "--json", "--", "true")
                .json();
        JobWatch watch = watch(submitted, environment);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(watch::run);
        awaitWatching(watch, exit);
        assertThat(exit.get()).isEqualTo(ExitCodes.DETACHED);
        assertThat(err.toString())
                .contains("detached from job")
                .contains("it goes on")
                .contains("baton jobs get --project local");
        assertThat(baton(
                                "jobs",
                                "get",
                                "--project",
                                "local",
                                "--json",
                                submitted.at("/job/uuid").asText())
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("pending");
    }

    @Test
    void ctrlCAtATerminalAsksAndCancelsOnYes() throws Exception {
        baton(
                "specs",
                "create",
                "--name",
                "nobody",
                "--architecture",
                "x86_64",
                "--cpu",
                "1",
                "--memory",
                "1GiB",
                "--disk",
                "1GiB");
        JsonNode submitted = baton(
                        "run", "--project", "local", "--spec", "nobody", "--image", image, "--json", "--", "true")
                .json();
        CliEnvironment terminal = new CliEnvironment(
                environment.env(), dir, Clock.systemUTC(), new BufferedReader(new StringReader("y\n")), true);
        JobWatch watch = watch(submitted, terminal);
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(watch::run);
        awaitWatching(watch, exit);
        assertThat(exit.get()).isEqualTo(ExitCodes.JOB_CANCELED);
        assertThat(err.toString())
                .contains("Cancel job")
                .contains("canceling job")
                .contains("was canceled");
    }

    private final StringWriter err = new StringWriter();

    private JobWatch watch(JsonNode submitted, CliEnvironment env) {
        return new JobWatch(
                new ApiClient(url, token),
                "local",
                submitted.at("/job/uuid").asText(),
                submitted.at("/report/uuid").asText(),
                env,
                new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true),
                new JobWatch.Settings(false, false, null, Duration.ofSeconds(30), Duration.ofMillis(50)));
    }

    /** Presses Ctrl-C once the watch has shown the pending job (so the interrupt lands mid-wait). */
    private void awaitWatching(JobWatch watch, CompletableFuture<Integer> exit) {
        await().atMost(Duration.ofSeconds(60)).until(() -> err.toString().contains("pending") || exit.isDone());
        watch.interrupt();
    }
}
