package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.image.TestImages;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
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
 * Alerts from the command line, end to end (docs/alerts.md): a threshold created with
 * {@code baton thresholds create}, a history stored by direct runs on main, and a pull request's
 * first run (on the local runner of {@code baton up}) whose metric jumps: {@code run --wait}
 * prints the boundary and the alert, and with {@code --fail-on-alert} exits 8.
 */
class RunFailOnAlertTest {
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
        Path layout = TestImages.layout(Files.createDirectories(dir.resolve("image")), "alerts");
        CliRun.Result pushed =
                baton("image", "push", layout.toString(), "local/sample:latest", "--token", token, "--server", url);
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

    /** main's history: direct runs of benchmark sort, a day apart, before now. */
    void history(double... latencies) throws Exception {
        Instant t = Instant.now().minus(Duration.ofDays(latencies.length + 1));
        for (double v : latencies) {
            t = t.plus(Duration.ofDays(1));
            Path bmf = Files.writeString(
                    dir.resolve("bmf-" + v + ".json"), "{\"sort\":{\"latency\":{\"value\":" + v + "}}}");
            CliRun.Result r = baton(
                    "run",
                    "--project",
                    "local",
                    "--branch",
                    "main",
                    "--results",
                    bmf.toString(),
                    "--start-time",
                    t.minusSeconds(1).toString(),
                    "--end-time",
                    t.toString());
            assertThat(r.exit()).as(r.err()).isZero();
        }
    }

    String[] prRun(String branch, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "run",
                "--project",
                "local",
                "--spec",
                "local",
                "--image",
                image,
                "--poll-interval",
                "50ms",
                "--wait",
                "--branch",
                branch,
                "--hash",
                "0123abc",
                "--start-point",
                "main"));
        args.addAll(List.of(extra));
        args.addAll(List.of("--", "sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":16}}}'"));
        return args.toArray(String[]::new);
    }

    @Test
    void aPullRequestWhoseBenchmarkGotSlowerFailsWithExitEight() throws Exception {
        CliRun.Result created = baton(
                "thresholds",
                "create",
                "--project",
                "local",
                "--testbed",
                "localhost",
                "--measure",
                "latency",
                "--model",
                "t_test",
                "--upper-boundary",
                "0.95");
        assertThat(created.exit()).as(created.err()).isZero();
        history(10, 12, 11, 13, 14);

        CliRun.Result r = baton(prRun("feature", "--fail-on-alert"));

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.ALERT);
        // t(0.95, 4) × √3 above the mean 12: 15.692466…
        assertThat(r.out()).containsPattern("BENCHMARK +MEASURE +VALUE +LOWER LIMIT +UPPER LIMIT +MODEL +BASELINE");
        assertThat(r.out())
                .containsPattern(
                        "(?m)^sort +latency +16 +- +15\\.69246\\d* +t_test +5 earlier results, mean 12 ± 1\\.58113\\d*$");
        assertThat(r.out()).containsPattern("ALERT [0-9a-f-]{36}: sort latency = 16 is above the upper limit 15\\.69");
        assertThat(r.err()).contains("1 alert was raised on report").contains("--fail-on-alert");
        // The group the alert forms (issue 44): named on stderr and as a GROUP line.
        assertThat(r.err()).containsPattern(", 1 group [0-9a-f-]{36} \\(--fail-on-alert\\)");
        assertThat(r.out()).containsPattern("(?m)^GROUP [0-9a-f-]{36}: 1 alert of this report");

        // Another pull request without --fail-on-alert: the alert is printed, and the job's success is the exit status.
        CliRun.Result again = baton(prRun("other-feature"));
        assertThat(again.exit()).as(again.out() + again.err()).isEqualTo(ExitCodes.OK);
        assertThat(again.out()).contains("ALERT ");

        CliRun.Result alerts =
                baton("alerts", "list", "--project", "local", "--status", "active", "--branch", "feature");
        assertThat(alerts.exit()).as(alerts.err()).isZero();
        assertThat(alerts.out())
                .containsPattern(
                        "(?m)^[0-9a-f-]{36} +active +untriaged +[0-9a-f-]{36} +feature +sort +latency +16 +upper +15\\.69");
        String uuid = alerts.out().lines().skip(1).findFirst().orElseThrow().split(" +")[0];

        // The group, listed and triaged as a whole (docs/alerts.md, "Triage and groups").
        CliRun.Result groups = baton("alerts", "groups", "--project", "local", "--branch", "feature");
        assertThat(groups.exit()).as(groups.err()).isZero();
        assertThat(groups.out()).containsPattern("(?m)^[0-9a-f-]{36} +untriaged +1 +feature +localhost +0123abc ");
        String group = groups.out().lines().skip(1).findFirst().orElseThrow().split(" +")[0];
        CliRun.Result triaged = baton(
                "alerts",
                "triage",
                "--project",
                "local",
                "--group",
                group,
                "--state",
                "culprit",
                "--commit",
                "0123abc");
        assertThat(triaged.exit()).as(triaged.err()).isZero();
        assertThat(triaged.out()).contains("Triaged group " + group + " (1 alert) as culprit.");
        assertThat(baton("alerts", "list", "--project", "local", "--branch", "feature")
                        .out())
                .containsPattern("(?m)^" + uuid + " +active +culprit ");
        CliRun.Result neither = baton("alerts", "triage", "--project", "local", "--state", "expected");
        assertThat(neither.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(neither.err()).contains("name an ALERT or --group GROUP");
        assertThat(baton("alerts", "dismiss", "--project", "local", uuid).out()).contains("Dismissed alert " + uuid);

        CliRun.Result history = baton(
                "metrics",
                "history",
                "--project",
                "local",
                "--benchmark",
                "sort",
                "--measure",
                "latency",
                "--branch",
                "feature");
        assertThat(history.exit()).as(history.err()).isZero();
        assertThat(history.out())
                .containsPattern("(?m) +feature +localhost +0123abc +16 +- +15\\.69\\d* +t_test +[0-9a-f-]{36}$");
        assertThat(baton(
                                "metrics",
                                "history",
                                "--project",
                                "local",
                                "--benchmark",
                                "sort",
                                "--measure",
                                "latency",
                                "--json")
                        .json()
                        .get("metrics"))
                .hasSize(7);
    }

    @Test
    void aMalformedThresholdIsRefusedWithTheServersReason() {
        CliRun.Result r = baton(
                "thresholds",
                "create",
                "--project",
                "local",
                "--testbed",
                "localhost",
                "--measure",
                "latency",
                "--model",
                "t_test",
                "--upper-boundary",
                "1.5");
        assertThat(r.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(r.err()).contains("upper_boundary").contains("strictly between 0.5 and 1");
        assertThat(baton("thresholds", "list", "--project", "local").out()).contains("(no thresholds)");
    }

    @Test
    void aWebhookIsCreatedWithItsSecretShownOnceListedAndDeleted() {
        CliRun.Result created =
                baton("webhooks", "create", "--project", "local", "--url", "http://127.0.0.1:9/hook", "--json");
        assertThat(created.exit()).as(created.err()).isZero();
        String secret = created.json().get("secret").asText();
        String uuid = created.json().at("/webhook/uuid").asText();
        assertThat(created.err()).contains("shown only once");
        CliRun.Result list = baton("webhooks", "list", "--project", "local");
        assertThat(list.out())
                .containsPattern(uuid + " +http://127\\.0\\.0\\.1:9/hook")
                .doesNotContain(secret);
        assertThat(baton("webhooks", "deliveries", "--project", "local", uuid).out())
                .contains("(no deliveries)");
        assertThat(baton("webhooks", "delete", "--project", "local", uuid).exit())
                .isZero();
        assertThat(baton("webhooks", "list", "--project", "local").out()).contains("(no webhooks)");
    }
}
