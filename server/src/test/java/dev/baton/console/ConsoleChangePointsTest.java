package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics page's change points (docs/alerts.md, "Change points"; issue 44): a change_point
 * threshold and nine direct runs with a 20 % step at the seventh; the page lists the stored change
 * point with its commit range, size and interval and links its alert group on the alerts page,
 * whose row carries the anchor; the plot's JSON carries the same for the marks it draws (the
 * drawing itself is checked in the browser tests of the plot).
 */
class ConsoleChangePointsTest {
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");
    static final double[] STEP = {10, 10.1, 9.9, 10, 10.2, 9.8, 12, 12.1, 11.9};

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
    void theMetricsPageListsTheChangePointWithItsCommitRangeAndLinksItsGroup() throws Exception {
        baton.post(
                "/v0/projects/bench/thresholds",
                Map.of("testbed", "lab", "measure", "latency", "model", "change_point"),
                201);
        JsonNode last = null;
        for (int i = 0; i < STEP.length; i++) {
            Instant end = T0.plus(Duration.ofHours(i + 1));
            last = baton.post(
                    "/v0/run",
                    Map.of(
                            "project",
                            "bench",
                            "branch",
                            "main",
                            "testbed",
                            "lab",
                            "adapter",
                            "json",
                            "hash",
                            "aaaaaa" + (i + 1) + "f00",
                            "start_time",
                            end.minusSeconds(1).toString(),
                            "end_time",
                            end.toString(),
                            "results",
                            List.of(Map.of("sort", Map.of("latency", Map.of("value", STEP[i]))))),
                    201);
        }
        String group = last.at("/report/alerts/0/group").asText();
        assertThat(group).isNotEmpty();
        String session = signIn();

        String html = get("/console/projects/bench/metrics?benchmark=sort&measure=latency", session)
                .body();
        assertThat(html).contains("id=\"change-points\"");
        String table = html.substring(html.indexOf("id=\"change-points\""));
        table = table.substring(0, table.indexOf("</table>"));
        assertThat(table)
                .contains("<code>aaaaaa6..aaaaaa7</code>", "+20.0 %", "current", "main · lab")
                .contains("href=\"/console/projects/bench/alerts#group-" + group + "\"");

        String alerts = get("/console/projects/bench/alerts", session).body();
        assertThat(alerts).contains("id=\"group-" + group + "\"");

        JsonNode data = new ObjectMapper()
                .readTree(get("/console/projects/bench/metrics/data?benchmark=sort&measure=latency", session)
                        .body());
        assertThat(data.get("change_points")).hasSize(1);
        JsonNode mark = data.at("/change_points/0");
        assertThat(mark.get("range").asText()).isEqualTo("aaaaaa6..aaaaaa7");
        assertThat(mark.get("hash").asText()).isEqualTo("aaaaaa7f00");
        assertThat(Instant.parse(mark.get("at").asText())).isEqualTo(T0.plus(Duration.ofHours(7)));
        assertThat(mark.get("state").asText()).isEqualTo("current");

        // Another branch's page has none.
        assertThat(get("/console/projects/bench/metrics?benchmark=sort&measure=latency&branch=dev", session)
                        .body())
                .doesNotContain("id=\"change-points\"");
    }
}
