package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.server.testing.TestImages;
import dev.baton.server.testing.TestRunner;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event streams carry only what their reader may read: the console's change stream tells a
 * project's viewer nothing of another project's jobs, and a job's log stream stops for a reader
 * who lost the project while following it.
 */
class EventStreamAccessTest {
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

    @Test
    void theConsoleStreamOfAProjectsViewerCarriesNothingOfAnotherProjectsJobs() throws Exception {
        JsonNode other =
                baton.post("/v0/projects", Map.of("name", "Other", "slug", "other", "organization", "acme"), 201);
        String image =
                TestImages.push(dataDir, ProjectUuid.parse(other.path("uuid").asText()), "", "v1", TestImages.BENCH);
        String session = signIn(baton.viewerToken("ci", "bench"));
        HttpResponse<InputStream> stream = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/events")))
                        .header("Cookie", session)
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        try (var lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).startsWith("retry:");
            // Another project's job first, then one of the viewer's: the stream is in order, so a leak shows before the
            // second.
            String hidden = baton.post(
                            "/v0/run",
                            Map.of("project", "other", "image", image, "spec", "small", "cmd", List.of("bench")),
                            201)
                    .at("/job/uuid")
                    .asText();
            String own = baton.submit();
            List<String> seen = readUntil(lines, "event: job-" + own);
            assertThat(seen).as("the viewer's own job is announced").contains("event: job-" + own, "event: jobs");
            assertThat(String.join("\n", seen))
                    .as("nothing of project other's job")
                    .doesNotContain(hidden);
            // Canceling it is activity of that project too.
            baton.post("/v0/projects/other/jobs/" + hidden + "/cancel", Map.of(), 200);
            baton.post("/v0/projects/bench/jobs/" + own + "/cancel", Map.of(), 200);
            assertThat(String.join("\n", readUntil(lines, "event: job-" + own))).doesNotContain(hidden);
        }
    }

    @Test
    void aLogFollowerWhoLosesTheProjectGetsNothingMore() throws Exception {
        String token = baton.viewerToken("ci", "bench");
        String[] runner = baton.createRunner("box 7");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            var claimed = baton.runningJobOn(r);
            r.send(new RunnerMessage.Log(claimed.uuid(), claimed.lease(), 1, LogStream.STDOUT, 0, "line one\n", null));
            HttpResponse<InputStream> stream = http.send(
                    HttpRequest.newBuilder(URI.create(
                                    baton.url("/v0/projects/bench/jobs/" + claimed.uuid() + "/logs?follow=true")))
                            .header("Authorization", "Bearer " + token)
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(stream.statusCode()).isEqualTo(200);
            try (var lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                assertThat(String.join("\n", readUntil(lines, "event: log"))).isNotEmpty();
                assertThat(lines.readLine()).contains("line one");
                // The user is removed from the project while following; the clock passes the re-check interval.
                var removed = http.send(
                        HttpRequest.newBuilder(URI.create(baton.url("/v0/projects/bench/members/ci")))
                                .header("Authorization", "Bearer " + baton.admin)
                                .DELETE()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(removed.statusCode()).as(removed.body()).isEqualTo(204);
                baton.clock.advance(Duration.ofSeconds(2));
                r.send(new RunnerMessage.Log(
                        claimed.uuid(), claimed.lease(), 2, LogStream.STDOUT, 0, "line two\n", null));
                List<String> rest = readToEnd(lines);
                assertThat(String.join("\n", rest))
                        .as("the stream ends without the next line")
                        .doesNotContain("line two");
            }
            var again = http.send(
                    HttpRequest.newBuilder(URI.create(baton.url("/v0/projects/bench/jobs/" + claimed.uuid() + "/logs")))
                            .header("Authorization", "Bearer " + token)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(again.statusCode()).isEqualTo(404);
        }
    }

    /** Signs in through the form; returns the session cookie ("name=value"). */
    private String signIn(String token) throws Exception {
        var page = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/sign-in")))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        String pre = page.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(Csrf.PRE_SESSION_COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
        Matcher m = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(m.find()).isTrue();
        String form = "_csrf=" + URLEncoder.encode(m.group(1), StandardCharsets.UTF_8) + "&token="
                + URLEncoder.encode(token, StandardCharsets.UTF_8);
        var r = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/sign-in")))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", pre)
                        .POST(HttpRequest.BodyPublishers.ofString(form))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(303);
        return r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(ConsoleSignIn.COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
    }

    /** The lines read up to and including {@code wanted}; fails at the end of the stream or after 10 s. */
    private static List<String> readUntil(BufferedReader lines, String wanted) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    List<String> seen = new ArrayList<>();
                    try {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            seen.add(line);
                            if (line.equals(wanted)) return seen;
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    throw new AssertionError("stream ended before '" + wanted + "': " + seen);
                })
                .get(10, TimeUnit.SECONDS);
    }

    /** Every line until the server ends the stream; fails when it is still open after 10 s. */
    private static List<String> readToEnd(BufferedReader lines) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    List<String> seen = new ArrayList<>();
                    try {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) seen.add(line);
                    } catch (java.io.IOException e) {
                        // the server closed it
                    }
                    return seen;
                })
                .get(10, TimeUnit.SECONDS);
    }
}
