package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.FailureCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console over plain HTTP on the assembled server: sign-in and its cookie, CSRF refusals that
 * change nothing, the security headers, actions going through the /v0 API, the SSE stream fed by
 * dispatch. The browser tests ({@link ConsoleBrowserTest}) drive the same pages in Chromium.
 */
class ConsoleHttpTest {
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

    HttpResponse<String> get(String path, String cookie) throws Exception {
        var b = HttpRequest.newBuilder(URI.create(baton.url(path)));
        if (cookie != null) b.header("Cookie", cookie);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> postForm(String path, String cookie, Map<String, String> form) throws Exception {
        String body = form.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        var b = HttpRequest.newBuilder(URI.create(baton.url(path)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (cookie != null) b.header("Cookie", cookie);
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String setCookie(HttpResponse<?> r, String name) {
        return r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(name + "="))
                .findFirst()
                .orElse(null);
    }

    static String csrfOf(String html) {
        Matcher m = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(html);
        assertThat(m.find()).as("a CSRF field in the page").isTrue();
        return m.group(1);
    }

    /** Signs in through the form; returns the session cookie ("name=value"). */
    String signIn() throws Exception {
        return signIn(baton.admin, "/console/runners");
    }

    String signIn(String token, String expectedHome) throws Exception {
        var page = get("/console/sign-in", null);
        String pre = setCookie(page, Csrf.PRE_SESSION_COOKIE).split(";")[0];
        var r = postForm("/console/sign-in", pre, Map.of("_csrf", csrfOf(page.body()), "token", token));
        assertThat(r.statusCode()).isEqualTo(303);
        assertThat(r.headers().firstValue("Location")).hasValue(expectedHome);
        return setCookie(r, ConsoleSignIn.COOKIE).split(";")[0];
    }

    @Test
    void aProjectTokenSeesItsProjectAndNothingOfAnotherOrOfTheServerWidePages() throws Exception {
        baton.post("/v0/projects", Map.of("name", "Other", "slug", "other", "organization", "acme"), 201);
        String session = signIn(baton.viewerToken("ci", "bench"), "/console/projects");
        String projects = get("/console/projects", session).body();
        assertThat(projects).contains("Bench").doesNotContain("Other").doesNotContain("href=\"/console/runners\"");
        assertThat(get("/console/projects/bench/jobs", session).statusCode()).isEqualTo(200);
        var other = get("/console/projects/other/jobs", session);
        assertThat(other.statusCode())
                .as("another project is not found, not forbidden")
                .isEqualTo(404);
        assertThat(other.body()).contains("no project 'other'");
        assertThat(get("/console/runners", session).statusCode()).isEqualTo(403);
        assertThat(get("/console/queue", session).statusCode()).isEqualTo(403);

        // a revoked token ends the session at once
        String tokenId = baton.get("/v0/tokens?user=ci").get(0).path("uuid").asText();
        var revoke = http.send(
                java.net.http.HttpRequest.newBuilder(URI.create(baton.url("/v0/tokens/" + tokenId)))
                        .header("Authorization", "Bearer " + baton.admin)
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(revoke.statusCode()).as(revoke.body()).isIn(200, 204);
        var after = get("/console/projects/bench/jobs", session);
        assertThat(after.statusCode()).isEqualTo(303);
        assertThat(after.headers().firstValue("Location")).hasValue("/console/sign-in");
    }

    @Test
    void pagesNeedSignInAndTheSessionCookieIsHttpOnlyAndStrict() throws Exception {
        var root = get("/", null);
        assertThat(root.statusCode()).isEqualTo(303);
        assertThat(root.headers().firstValue("Location")).hasValue("/console/runners");
        var anonymous = get("/console/runners", null);
        assertThat(anonymous.statusCode()).isEqualTo(303);
        assertThat(anonymous.headers().firstValue("Location")).hasValue("/console/sign-in");
        assertThat(get("/console/events", null).statusCode()).isEqualTo(401);

        var page = get("/console/sign-in", null);
        String pre = setCookie(page, Csrf.PRE_SESSION_COOKIE);
        assertThat(pre).contains("HttpOnly").contains("SameSite=Strict");
        var r = postForm(
                "/console/sign-in", pre.split(";")[0], Map.of("_csrf", csrfOf(page.body()), "token", baton.admin));
        assertThat(r.statusCode()).isEqualTo(303);
        String session = setCookie(r, ConsoleSignIn.COOKIE);
        assertThat(session).contains("HttpOnly").contains("SameSite=Strict").contains("Path=/");

        var runners = get("/console/runners", session.split(";")[0]);
        assertThat(runners.statusCode()).isEqualTo(200);
        assertThat(runners.body()).contains("No runners yet");
    }

    @Test
    void anUnknownProjectOrJobIsANotFoundPage() throws Exception {
        String session = signIn();
        var project = get("/console/projects/nope/jobs", session);
        assertThat(project.statusCode()).isEqualTo(404);
        assertThat(project.body()).contains("no project 'nope'");
        assertThat(get("/console/projects/bench/jobs/00000000-0000-0000-0000-000000000000", session)
                        .statusCode())
                .isEqualTo(404);
        assertThat(get("/console/projects/bench/jobs?status=sleeping", session).statusCode())
                .isEqualTo(400);
    }

    @Test
    void theRegistryPageListsTheProjectsRepositoriesAndTags() throws Exception {
        String session = signIn();
        assertThat(get("/console/projects/bench/registry", session).body()).contains("No images");
        var project = dev.baton.protocol.id.ProjectUuid.parse(baton.project);
        dev.baton.server.testing.TestImages.push(dataDir, project, "", "v1", dev.baton.server.testing.TestImages.BENCH);
        dev.baton.server.testing.TestImages.push(
                dataDir, project, "tools/bench", "v2", dev.baton.server.testing.TestImages.BENCH);
        String html = get("/console/projects/bench/registry", session).body();
        assertThat(html)
                .contains("(root)")
                .contains("tools/bench")
                .contains("v2")
                .doesNotContain("_all")
                .doesNotContain("_manifests");
    }

    @Test
    void aWrongTokenIsRefusedAndSetsNoSession() throws Exception {
        var page = get("/console/sign-in", null);
        String pre = setCookie(page, Csrf.PRE_SESSION_COOKIE).split(";")[0];
        var r = postForm(
                "/console/sign-in",
                pre,
                Map.of("_csrf", csrfOf(page.body()), "token", "baton_admin_" + "0".repeat(64)));
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.body()).contains("that token is not valid");
        assertThat(setCookie(r, ConsoleSignIn.COOKIE)).isNull();
        // A cookie with a wrong token is no session either.
        assertThat(get("/console/runners", ConsoleSignIn.COOKIE + "=baton_admin_nope")
                        .statusCode())
                .isEqualTo(303);
    }

    @Test
    void aSignInWithoutTheFormsCsrfValueIsRefused() throws Exception {
        var page = get("/console/sign-in", null);
        String pre = setCookie(page, Csrf.PRE_SESSION_COOKIE).split(";")[0];
        var r = postForm("/console/sign-in", pre, Map.of("_csrf", "forged", "token", baton.admin));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(setCookie(r, ConsoleSignIn.COOKIE)).isNull();
    }

    @Test
    void everyConsoleResponseHasAStrictContentSecurityPolicy() throws Exception {
        String session = signIn();
        for (String path : List.of(
                "/console/sign-in",
                "/console/runners",
                "/console/specs",
                "/console/queue",
                "/console/projects",
                "/console/projects/bench/jobs",
                "/console/projects/bench/registry")) {
            var r = get(path, session);
            String csp = r.headers().firstValue("Content-Security-Policy").orElse("");
            assertThat(csp)
                    .as(path)
                    .contains("script-src 'self'")
                    .contains("frame-ancestors 'none'")
                    .doesNotContain("unsafe-inline")
                    .doesNotContain("unsafe-eval");
            assertThat(r.body()).as(path + " has no inline script").doesNotContainPattern("<script(?![^>]*\\ssrc=)");
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        }
        for (String asset : List.of("htmx.min.js", "htmx-sse.js", "console.js", "console.css")) {
            assertThat(get("/console/static/" + asset, null).statusCode())
                    .as(asset)
                    .isEqualTo(200);
        }
    }

    @Test
    void aCancelWithoutTheSessionsCsrfTokenIsRefusedAndChangesNothing() throws Exception {
        String session = signIn();
        String job = baton.submit();
        String jobPage = "/console/projects/bench/jobs/" + job;
        var page = get(jobPage, session);
        assertThat(page.body()).contains("pending").contains("Cancel job");

        assertThat(postForm(jobPage + "/cancel", session, Map.of()).statusCode())
                .isEqualTo(403);
        assertThat(postForm(jobPage + "/cancel", session, Map.of("_csrf", "forged"))
                        .statusCode())
                .isEqualTo(403);
        assertThat(postForm(jobPage + "/cancel", null, Map.of("_csrf", csrfOf(page.body())))
                        .statusCode())
                .isEqualTo(401);
        assertThat(baton.status(job)).isEqualTo("pending");

        var canceled = postForm(jobPage + "/cancel", session, Map.of("_csrf", csrfOf(page.body()), "confirm", "yes"));
        assertThat(canceled.statusCode()).isEqualTo(303);
        assertThat(baton.status(job)).isEqualTo("canceled");
        // The API's own refusal comes back to the page: a canceled job is not cancelable.
        var again = postForm(jobPage + "/cancel", session, Map.of("_csrf", csrfOf(page.body()), "confirm", "yes"));
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("only pending, claimed or running jobs can be canceled");
    }

    @Test
    void rotatingARunnersKeyShowsTheNewKeyOnceAndTheOldOneStopsWorking() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 1");
        String csrf = csrfOf(get("/console/runners", session).body());
        var r = postForm("/console/runners/" + runner[0] + "/rotate", session, Map.of("_csrf", csrf, "confirm", "yes"));
        assertThat(r.statusCode()).isEqualTo(200);
        Matcher key = Pattern.compile("value=\"(baton_runner_[0-9a-f]{64})\"").matcher(r.body());
        assertThat(key.find()).isTrue();
        assertThat(key.group(1)).isNotEqualTo(runner[1]);
        assertThat(get("/console/runners", session).body()).doesNotContain(key.group(1));

        try (TestRunner old = baton.connect(runner[0], runner[1])) {
            assertThat(old.awaitClose()).as("the old key is refused").isNotZero();
        } catch (RuntimeException refused) {
            // refused at the upgrade: also fine
        }
        try (TestRunner fresh = baton.connect(runner[0], key.group(1))) {
            assertThat(fresh.welcome()).isNotNull();
        }
    }

    @Test
    void archivingARunnerGoesThroughTheApi() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 2");
        String csrf = csrfOf(get("/console/runners", session).body());
        assertThat(postForm(
                                "/console/runners/" + runner[0] + "/archive",
                                session,
                                Map.of("_csrf", csrf, "archived", "true", "confirm", "yes"))
                        .statusCode())
                .isEqualTo(303);
        assertThat(baton.get("/v0/runners/" + runner[0]).get("archived").isNull())
                .isFalse();
        assertThat(get("/console/runners", session).body()).contains("state-archived");
        // Draining a runner that is not connected: the API's 409 and its message reach the page.
        var drain =
                postForm("/console/runners/" + runner[0] + "/drain", session, Map.of("_csrf", csrf, "state", "quiet"));
        assertThat(drain.statusCode()).isEqualTo(409);
        assertThat(drain.body()).contains("has no open channel");
    }

    /** Issue 19: a quarantined runner says why and has a Release button (through the API); its labels are shown. */
    @Test
    void aQuarantinedRunnerIsShownWithItsReasonAndReleasedThroughTheApi() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 6");
        var store = baton.server.store();
        long id = store.runners()
                .findRunner(dev.baton.protocol.id.ResourceId.of(runner[0]))
                .orElseThrow()
                .id();
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            r.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            baton.submit();
            var claimed = r.expect(ServerMessage.Job.class).job();
            r.send(new RunnerMessage.Declined(
                    claimed.uuid(),
                    claimed.lease(),
                    dev.baton.protocol.message.DeclineCode.EXECUTOR_ERROR,
                    "runc missing"));
            r.expect(ServerMessage.Ack.class);
        }
        // The server's own threshold is off here; the store's decision is what the page reads.
        assertThat(store.runners().quarantineIfFlaky(id, 1, java.time.Duration.ofHours(1), baton.clock.instant()))
                .isPresent();
        store.runners().setRunnerLabels(id, true, Map.of("disk", "nvme"), baton.clock.instant());
        String page = get("/console/runners", session).body();
        assertThat(page)
                .contains("state-quarantined")
                .contains("1 infrastructure failure within 1h")
                .contains("/release")
                .contains("labels: disk=nvme");
        String csrf = csrfOf(page);
        assertThat(postForm("/console/runners/" + runner[0] + "/release", session, Map.of("_csrf", csrf))
                        .statusCode())
                .isEqualTo(303);
        assertThat(baton.get("/v0/runners/" + runner[0]).has("quarantined")).isFalse();
        assertThat(get("/console/runners", session).body()).doesNotContain("state-quarantined");
    }

    /** Issue 41: the runners page says which machine each runner last connected as, and whether its agent is behind. */
    @Test
    void theRunnersPageShowsEachRunnersMachineAndWhetherItIsBehind() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 41");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            r.send(new RunnerMessage.Ready(
                    30,
                    "linux",
                    "x86_64",
                    "0.0.1-old",
                    1,
                    null,
                    null,
                    null,
                    null,
                    null,
                    "rack4-node7",
                    4242L,
                    java.time.Instant.parse("2026-11-29T05:00:00Z")));
            org.awaitility.Awaitility.await()
                    .until(() -> baton.get("/v0/runners/" + runner[0]).has("machine"));
            String page = get("/console/runners", session).body();
            assertThat(page)
                    .contains("rack4-node7")
                    .contains("linux/x86_64")
                    .contains("agent 0.0.1-old")
                    .contains("data-behind")
                    .contains("pid 4242")
                    .contains("from 127.0.0.1");
        }
    }

    /** A lease is a capability: the page shows a fingerprint that differs per attempt and never the lease itself. */
    @Test
    void eachAttemptShowsItsOwnLeaseFingerprintAndNeverTheLease() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 7");
        String[] other = baton.createRunner("box 7b");
        try (TestRunner r = baton.connect(runner[0], runner[1]);
                TestRunner o = baton.connect(other[0], other[1])) {
            r.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            String job = baton.submit();
            var first = r.expect(ServerMessage.Job.class).job();
            // Declined: the job goes back to the queue for another runner, and a second attempt begins there.
            r.send(new RunnerMessage.Declined(first.uuid(), first.lease(), "shutting down"));
            r.expect(ServerMessage.Ack.class);
            o.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            var second = o.expect(ServerMessage.Job.class).job();
            assertThat(second.lease().value()).isNotEqualTo(first.lease().value());

            String html = get("/console/projects/bench/jobs/" + job, session).body();
            Matcher shown = Pattern.compile("<code title=\"[^\"]*lease[^\"]*\">([^<]+)</code>")
                    .matcher(html);
            List<String> fingerprints = shown.results().map(m -> m.group(1)).toList();
            assertThat(fingerprints)
                    .as("one lease fingerprint per attempt")
                    .hasSize(2)
                    .doesNotHaveDuplicates();
            assertThat(html)
                    .doesNotContain(first.lease().value())
                    .doesNotContain(second.lease().value());
        }
    }

    /** A project viewer may not cancel: no button; a forced post is the API's refusal, with a way back it may follow. */
    @Test
    void aViewerIsShownNoCancelButtonAndARefusalLeadsOnlyToPagesItMaySee() throws Exception {
        String job = baton.submit();
        String jobPage = "/console/projects/bench/jobs/" + job;
        String session = signIn(baton.viewerToken("watcher", "bench"), "/console/projects");
        String page = get(jobPage, session).body();
        assertThat(page).contains("state-pending").doesNotContain("Cancel job").doesNotContain(jobPage + "/cancel");

        var refused = postForm(jobPage + "/cancel", session, Map.of("_csrf", csrfOf(page), "confirm", "yes"));
        assertThat(refused.statusCode()).isEqualTo(403);
        assertThat(baton.status(job)).isEqualTo("pending");
        List<String> links = Pattern.compile("href=\"(/[^\"]*)\"")
                .matcher(refused.body())
                .results()
                .map(m -> m.group(1))
                .toList();
        assertThat(links).as("the refusal page links somewhere").isNotEmpty();
        for (String link : links)
            assertThat(get(link, session).statusCode())
                    .as(link + " from the refusal page")
                    .isEqualTo(200);
    }

    /** Re-run is a form post like Cancel: without the session's CSRF token, or by a viewer, it submits nothing. */
    @Test
    void aReRunWithoutTheCsrfTokenOrByAViewerSubmitsNothing() throws Exception {
        String job = baton.submit();
        String jobPage = "/console/projects/bench/jobs/" + job;
        String session = signIn();
        String page = get(jobPage, session).body();
        assertThat(page).contains(jobPage + "/rerun");
        int jobs = baton.get("/v0/projects/bench/jobs?limit=500").get("jobs").size();
        assertThat(postForm(jobPage + "/rerun", session, Map.of()).statusCode()).isEqualTo(403);
        assertThat(postForm(jobPage + "/rerun", session, Map.of("_csrf", "forged"))
                        .statusCode())
                .isEqualTo(403);
        assertThat(postForm(jobPage + "/rerun", null, Map.of("_csrf", csrfOf(page)))
                        .statusCode())
                .isEqualTo(401);

        String viewer = signIn(baton.viewerToken("onlooker", "bench"), "/console/projects");
        String viewerPage = get(jobPage, viewer).body();
        assertThat(viewerPage).contains("state-pending").doesNotContain(jobPage + "/rerun");
        assertThat(postForm(jobPage + "/rerun", viewer, Map.of("_csrf", csrfOf(viewerPage)))
                        .statusCode())
                .isEqualTo(403);
        assertThat(baton.get("/v0/projects/bench/jobs?limit=500").get("jobs").size())
                .as("no job was submitted")
                .isEqualTo(jobs);

        var rerun = postForm(jobPage + "/rerun", session, Map.of("_csrf", csrfOf(page)));
        assertThat(rerun.statusCode()).isEqualTo(303);
        assertThat(baton.get("/v0/projects/bench/jobs?limit=500").get("jobs").size())
                .isEqualTo(jobs + 1);
    }

    /** A submitter may cancel the jobs it submitted, not others': the button follows the API's rule. */
    @Test
    void aSubmitterIsShownCancelOnlyOnItsOwnJobs() throws Exception {
        String token = baton.tokenWithRole("dev", "bench", "submitter");
        String own = baton.submitAs(token);
        String others = baton.submit();
        String session = signIn(token, "/console/projects");
        assertThat(get("/console/projects/bench/jobs/" + own, session).body()).contains("Cancel job");
        assertThat(get("/console/projects/bench/jobs/" + others, session).body())
                .contains("state-pending")
                .doesNotContain("Cancel job");
    }

    /** Cancel, archive and rotate key first ask; a post without the confirmation's yes changes nothing. */
    @Test
    void destructiveActionsAskFirstAndChangeNothingUntilConfirmed() throws Exception {
        String session = signIn();
        String job = baton.submit();
        String jobPage = "/console/projects/bench/jobs/" + job;
        String[] runner = baton.createRunner("box 8");
        String csrf = csrfOf(get(jobPage, session).body());

        var cancel = postForm(jobPage + "/cancel", session, Map.of("_csrf", csrf));
        assertThat(cancel.statusCode()).isEqualTo(200);
        assertThat(cancel.body())
                .contains("Cancel job " + job.substring(0, 8) + "?")
                .contains("name=\"confirm\" value=\"yes\"")
                .contains("href=\"" + jobPage + "\"");
        assertThat(baton.status(job)).isEqualTo("pending");

        var archive = postForm(
                "/console/runners/" + runner[0] + "/archive", session, Map.of("_csrf", csrf, "archived", "true"));
        assertThat(archive.body())
                .contains("Archive runner " + runner[0] + "?")
                .contains("name=\"archived\" value=\"true\"");
        assertThat(baton.get("/v0/runners/" + runner[0]).path("archived").isTextual())
                .as("not archived")
                .isFalse();

        var rotate = postForm("/console/runners/" + runner[0] + "/rotate", session, Map.of("_csrf", csrf));
        assertThat(rotate.body())
                .contains("Rotate the key of runner " + runner[0] + "?")
                .doesNotContain("baton_runner_");
        try (TestRunner stillValid = baton.connect(runner[0], runner[1])) {
            assertThat(stillValid.welcome()).as("the old key still works").isNotNull();
        }

        assertThat(postForm(jobPage + "/cancel", session, Map.of("_csrf", csrf, "confirm", "yes"))
                        .statusCode())
                .isEqualTo(303);
        assertThat(baton.status(job)).isEqualTo("canceled");
    }

    @Test
    void theEventStreamTellsOfARunnerAndAJobAsDispatchSeesThem() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 3");
        var request = HttpRequest.newBuilder(URI.create(baton.url("/console/events")))
                .header("Cookie", session)
                .build();
        HttpResponse<InputStream> stream = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        assertThat(stream.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        try (var lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8));
                TestRunner r = baton.connect(runner[0], runner[1])) {
            assertThat(lines.readLine()).isEqualTo("retry: " + ConsoleEvents.RETRY_MILLIS);
            r.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
            assertThat(readUntil(lines, "event: runners")).isTrue();
            String job = baton.submit();
            r.expect(ServerMessage.Job.class);
            assertThat(readUntil(lines, "event: job-" + job)).isTrue();
        }
    }

    @Test
    void aJobsLogIsStreamedToASignedInViewerOnly() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 5");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            var claimed = baton.runningJobOn(r);
            String job = claimed.uuid().toString();
            r.send(new RunnerMessage.Log(
                    claimed.uuid(),
                    claimed.lease(),
                    1,
                    dev.baton.protocol.message.LogStream.STDOUT,
                    0,
                    "hello log\n",
                    null));
            String log = "/console/projects/bench/jobs/" + job + "/log?follow=true";
            assertThat(get(log, null).statusCode()).isEqualTo(401);
            HttpResponse<InputStream> stream = http.send(
                    HttpRequest.newBuilder(URI.create(baton.url(log)))
                            .header("Cookie", session)
                            .build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            assertThat(stream.statusCode()).isEqualTo(200);
            try (var lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                assertThat(readUntil(lines, "event: log")).isTrue();
                assertThat(lines.readLine()).contains("hello log");
            }
        }
    }

    /** The job page says why each failed attempt ended and whether it was retried (issue 41). */
    @Test
    void aFailedAttemptShowsItsKindAndWhyItWasNotRetried() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 6");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            var claimed = baton.runningJobOn(r);
            r.send(RunnerMessage.Failed.because(
                    claimed.uuid(),
                    claimed.lease(),
                    List.of(),
                    "executor error: runc exited 1",
                    FailureCode.EXECUTOR_ERROR));
            r.expect(ServerMessage.Ack.class);
            String page = get("/console/projects/bench/jobs/" + claimed.uuid(), session)
                    .body();
            assertThat(page).contains("infrastructure · not retried: attempts_exhausted");
        }
    }

    /** Reads lines until one equals {@code wanted}; false at the end of the stream or after 10 s. */
    private static boolean readUntil(BufferedReader lines, String wanted) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
                    try {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            if (line.equals(wanted)) return true;
                        }
                        return false;
                    } catch (java.io.IOException e) {
                        return false;
                    }
                })
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void aJobPageShowsItsMetricsTableAndChartOnceProcessed() throws Exception {
        String session = signIn();
        String[] runner = baton.createRunner("box 4");
        try (TestRunner r = baton.connect(runner[0], runner[1])) {
            var claimed = baton.runningJobOn(r);
            String job = claimed.uuid().toString();
            r.send(new RunnerMessage.Completed(
                    claimed.uuid(),
                    claimed.lease(),
                    List.of(
                            new dev.baton.protocol.model.IterationResult(
                                    0, "{\"sort\":{\"latency\":{\"value\":4.5}}}", "", Map.of("out/r.txt", "hello")),
                            new dev.baton.protocol.model.IterationResult(
                                    0, "{\"sort\":{\"latency\":{\"value\":5.5}}}", "", Map.of()))));
            r.expect(ServerMessage.Ack.class);
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> baton.status(job).equals("processed"));
            String html = get("/console/projects/bench/jobs/" + job, session).body();
            assertThat(html)
                    .contains("id=\"metrics\"")
                    .contains("latency")
                    .contains("<polyline")
                    .contains("iteration 1: 5.5");
            assertThat(html).contains("out/r.txt").contains("attempt 1 claimed by " + runner[0]);
            assertThat(html).doesNotContain(claimed.lease().toString());
            assertThat(html).doesNotContain("Cancel job");
        }
    }
}
