package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.server.testing.TestRunner;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A paired run's job page (issue 45): the verdict per metric and each pair with its order, from
 * the output a runner reported for the seeded sides (the runner here is the test's, speaking the
 * channel; the process executor's own run is tested in the runner module).
 */
class ConsolePairedTest {
    @TempDir
    Path dataDir;

    ConsoleServer baton;
    final HttpClient http =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeEach
    void start() throws Exception {
        baton = new ConsoleServer(dataDir);
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        baton.close();
    }

    private HttpResponse<String> get(String path, String cookie) throws Exception {
        var b = HttpRequest.newBuilder(URI.create(baton.url(path)));
        if (cookie != null) b.header("Cookie", cookie);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String signIn() throws Exception {
        var page = get("/console/sign-in", null);
        String pre = cookie(page, Csrf.PRE_SESSION_COOKIE);
        var m = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(m.find()).isTrue();
        String body = Map.of("_csrf", m.group(1), "token", baton.admin).entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        var r = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/sign-in")))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", pre)
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return cookie(r, ConsoleSignIn.COOKIE);
    }

    private static String cookie(HttpResponse<?> r, String name) {
        return r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(name + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
    }

    @Test
    void theJobPageShowsTheVerdictAndEveryPairWithItsOrder() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("paired box");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            r.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            String job = baton.run(baton.admin, Map.of("baseline", Map.of("cmd", List.of("old-bench")), "pairs", 3));
            ClaimedJob claimed = r.expect(ServerMessage.Job.class).job();
            PairedConfig paired = claimed.config().paired();
            assertThat(paired.baselineCmd()).containsExactly("old-bench");
            assertThat(claimed.config().iterationsOrDefault()).isEqualTo(6);
            List<IterationResult> results = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                double v = paired.side(i) == PairedConfig.Side.BASELINE ? 10 + i % 3 * 0.1 : 20 + i * 0.1;
                results.add(new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":" + v + "}}}", "", Map.of()));
            }
            r.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            r.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), results));
            await().atMost(Duration.ofSeconds(20)).until(() -> baton.status(job).equals("processed"));

            String html = get("/console/projects/bench/jobs/" + job, session).body();
            assertThat(html).contains("<h2>Paired run</h2>").contains("<code>old-bench</code>");
            String verdict = html.substring(html.indexOf("id=\"paired-verdict\""));
            assertThat(verdict.substring(0, verdict.indexOf("</table>")))
                    .contains("<td>sort</td><td>latency</td>")
                    .contains("class=\"verdict-slower\">slower</td>");
            String runs = html.substring(html.indexOf("id=\"paired-runs\""));
            runs = runs.substring(0, runs.indexOf("</table>"));
            assertThat(Pattern.compile("<td>(AB|BA)</td>")
                            .matcher(runs)
                            .results()
                            .count())
                    .isEqualTo(3);
        }
    }

    @Test
    void theJobPageNamesABaselineImage() throws Exception {
        // Issue 45: a baseline of its own image says which, and that its own command runs.
        String session = signIn();
        String old = dev.baton.server.testing.TestImages.push(
                baton.dataDir,
                dev.baton.protocol.id.ProjectUuid.parse(baton.project),
                "",
                "old",
                dev.baton.server.testing.TestImages.image(List.of("old-bench")));
        String[] runner = baton.createRunner("paired images box");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            // Only a runner that runs a baseline image is offered the job (decision 0076).
            r.send(new RunnerMessage.Ready(
                    30,
                    "linux",
                    "x86_64",
                    "test",
                    1,
                    null,
                    null,
                    dev.baton.protocol.model.RunnerCapabilities.executor("runc").withBaselineImage(true),
                    Map.of(dev.baton.protocol.model.CapabilityLabels.BASELINE_IMAGE, "true")));
            String job = baton.run(baton.admin, Map.of("baseline", Map.of("image", "old"), "pairs", 2));
            ClaimedJob claimed = r.expect(ServerMessage.Job.class).job();
            assertThat(claimed.config().paired().baselineImage().value()).isEqualTo(old);
            List<IterationResult> results = new ArrayList<>();
            for (int i = 0; i < 4; i++)
                results.add(
                        new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":" + (10 + i) + "}}}", "", Map.of()));
            r.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
            r.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), results));
            await().atMost(Duration.ofSeconds(20)).until(() -> baton.status(job).equals("processed"));

            String html = get("/console/projects/bench/jobs/" + job, session).body();
            assertThat(html).contains("Baseline (A) <code>in image " + old + ": (the image's own command)</code>");
        }
    }
}
