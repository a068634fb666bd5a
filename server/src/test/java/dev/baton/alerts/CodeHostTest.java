package dev.baton.alerts;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.equalTo;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.matching;
import static com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath;
import static com.github.tomakehurst.wiremock.client.WireMock.patch;
import static com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.put;
import static com.github.tomakehurst.wiremock.client.WireMock.putRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.client.MappingBuilder;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.message.Wire;
import dev.baton.store.CodeHosts;
import dev.baton.web.http.TestServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results where the pull request is (docs/pull-requests.md), end to end from a run to the code
 * host. GitHub and GitLab cannot be reached from here, so WireMock stands in for them: a
 * STAND-IN, not the hosts. Its stubs answer only requests whose method, path, headers and body
 * have the shapes of the hosts' REST references (GitHub: "Create a check run", "Update a check
 * run", "List/Create/Update an issue comment", API version 2022-11-28; GitLab: "Set the pipeline
 * status of a commit", "List/Create/Modify a merge request note"), so a request of another shape
 * gets WireMock's 404 and the delivery fails the test.
 */
class CodeHostTest {
    static final Duration WAIT = Duration.ofSeconds(15);
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");
    static final String HASH = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path dir;

    TestServer s;
    WireMockServer host;
    int runs;

    /** Null: SQLite in the test's directory ({@link PostgresCodeHostTest} runs the same on PostgreSQL). */
    String databaseUrl() {
        return null;
    }

    @BeforeEach
    void start() {
        s = TestServer.assembled(dir, TestServer.config(dir, databaseUrl()));
        s.post("/v0/organizations", Map.of("name", "org", "slug", "org", "plan", "team"));
        s.post("/v0/projects", Map.of("name", "proj", "slug", "proj", "organization", "org"));
        host = new WireMockServer(options().bindAddress("127.0.0.1").dynamicPort());
        host.start();
    }

    @AfterEach
    void stop() {
        s.close();
        host.stop();
    }

    String createHost(String kind, String repository, String token) {
        TestServer.Response r = s.post(
                "/v0/projects/proj/code-hosts",
                Map.of("kind", kind, "repository", repository, "token", token, "api_url", host.baseUrl()));
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        assertThat(r.text()).doesNotContain(token);
        return r.json().get("uuid").asText();
    }

    /** A direct run; {@code review} adds github_pr or gitlab_mr. */
    JsonNode run(String branch, double latency, Map<String, Object> review) {
        Instant end = T0.plus(Duration.ofHours(++runs));
        Map<String, Object> body = new HashMap<>(Map.of(
                "project",
                "proj",
                "branch",
                branch,
                "testbed",
                "box",
                "adapter",
                "json",
                "start_time",
                end.minusSeconds(1).toString(),
                "end_time",
                end.toString(),
                "results",
                List.of(Map.of("sort", Map.of("latency", Map.of("value", latency))))));
        body.putAll(review);
        if (!review.isEmpty()) {
            body.put("hash", HASH);
            body.put("start_point", "main");
        }
        TestServer.Response r = s.post("/v0/run", body);
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json();
    }

    void history() {
        assertThat(s.post(
                                "/v0/projects/proj/thresholds",
                                Map.of(
                                        "testbed",
                                        "box",
                                        "measure",
                                        "latency",
                                        "model",
                                        "t_test",
                                        "upper_boundary",
                                        0.95))
                        .status())
                .isEqualTo(201);
        for (double v : new double[] {10, 12, 11, 13, 14}) run("main", v, Map.of());
    }

    void awaitDelivered(String hostUuid, int count) {
        String log = "/v0/projects/proj/code-hosts/" + hostUuid + "/deliveries";
        await().atMost(WAIT).until(() -> {
            JsonNode d = s.get(log).json().get("deliveries");
            if (d.size() < count) return false;
            for (JsonNode one : d) if (one.get("delivered").isNull()) return false;
            return true;
        });
    }

    MappingBuilder github(MappingBuilder m) {
        return m.withHeader("Authorization", equalTo("Bearer ghs_stand-in"))
                .withHeader("Accept", equalTo("application/vnd.github+json"))
                .withHeader("X-GitHub-Api-Version", equalTo("2022-11-28"))
                .withHeader("User-Agent", matching(".+"));
    }

    void githubStubs() {
        String repo = "/repos/acme/widgets";
        // Create a check run: name and head_sha required; status completed needs a conclusion.
        host.stubFor(github(post(urlPathEqualTo(repo + "/check-runs")))
                .withHeader("Content-Type", equalTo("application/json"))
                .withRequestBody(matchingJsonPath("$.name", equalTo("Baton: box")))
                .withRequestBody(matchingJsonPath("$.head_sha", equalTo(HASH)))
                .withRequestBody(matchingJsonPath("$.status", equalTo("completed")))
                .withRequestBody(matchingJsonPath(
                        "$.conclusion",
                        matching("action_required|cancelled|failure|neutral|success|skipped|stale|timed_out")))
                .withRequestBody(matchingJsonPath("$.completed_at", matching("\\d{4}-\\d\\d-\\d\\dT.+Z")))
                .withRequestBody(matchingJsonPath("$.output.title"))
                .withRequestBody(matchingJsonPath("$.output.summary"))
                .willReturn(aResponse()
                        .withStatus(201)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":4242,\"status\":\"completed\"}")));
        host.stubFor(github(get(urlPathEqualTo(repo + "/issues/7/comments")))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("[]")));
        host.stubFor(github(post(urlPathEqualTo(repo + "/issues/7/comments")))
                .withRequestBody(matchingJsonPath("$.body", matching("(?s)<!-- baton-results:[0-9a-f]{24} -->.*")))
                .willReturn(aResponse()
                        .withStatus(201)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":9001}")));
        host.stubFor(github(patch(urlPathEqualTo(repo + "/issues/comments/9001")))
                .withRequestBody(matchingJsonPath("$.body"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":9001}")));
    }

    @Test
    void aPullRequestGetsACheckRunPerReportAndOneStickyCommentUpdatedByTheNextRun() {
        githubStubs();
        String gh = createHost("github", "acme/widgets", "ghs_stand-in");
        history();

        JsonNode first = run("feature", 16, Map.of("github_pr", 7));
        assertThat(first.at("/report/alerts")).hasSize(1);
        awaitDelivered(gh, 1);
        List<LoggedRequest> checks = host.findAll(postRequestedFor(urlPathEqualTo("/repos/acme/widgets/check-runs")));
        assertThat(checks).hasSize(1);
        JsonNode check = parse(checks.getFirst().getBodyAsString());
        assertThat(check.get("conclusion").asText()).isEqualTo("failure");
        assertThat(check.get("external_id").asText())
                .isEqualTo(first.at("/report/uuid").asText());
        List<LoggedRequest> created =
                host.findAll(postRequestedFor(urlPathEqualTo("/repos/acme/widgets/issues/7/comments")));
        assertThat(created).hasSize(1);
        String comment = parse(created.getFirst().getBodyAsString()).get("body").asText();
        assertThat(comment).contains("`box`", "`feature`", "| sort | latency |", "alert: above");

        // The next run of the same pull request, branch and testbed: a new check run, the same comment.
        JsonNode second = run("feature", 11, Map.of("github_pr", 7));
        assertThat(second.at("/report/alerts")).isEmpty();
        awaitDelivered(gh, 2);
        host.verify(2, postRequestedFor(urlPathEqualTo("/repos/acme/widgets/check-runs")));
        host.verify(1, postRequestedFor(urlPathEqualTo("/repos/acme/widgets/issues/7/comments")));
        List<LoggedRequest> updated =
                host.findAll(patchRequestedFor(urlPathEqualTo("/repos/acme/widgets/issues/comments/9001")));
        assertThat(updated).hasSize(1);
        assertThat(parse(updated.getFirst().getBodyAsString()).get("body").asText())
                .contains("no alert")
                .doesNotContain("alert: above");
        // A run without a pull request sends nothing.
        run("main", 12, Map.of());
        host.verify(2, postRequestedFor(urlPathEqualTo("/repos/acme/widgets/check-runs")));
        // The audit names the code host, never its token.
        JsonNode audit = s.get("/v0/audit?action=code_host.created").json().at("/events/0");
        assertThat(audit.get("detail").toString()).contains(gh).doesNotContain("ghs_stand-in");
    }

    @Test
    void aHostThatIsDownGetsTheReportAfterTheBackoffAndACheckRunIsNotMadeTwice() {
        githubStubs();
        // The comment fails first: the check run made by that attempt is updated by the next one.
        host.stubFor(github(post(urlPathEqualTo("/repos/acme/widgets/issues/7/comments")))
                .atPriority(1)
                .willReturn(aResponse().withStatus(503)));
        String gh = createHost("github", "acme/widgets", "ghs_stand-in");
        run("feature", 10, Map.of("github_pr", 7));

        String log = "/v0/projects/proj/code-hosts/" + gh + "/deliveries";
        await().atMost(WAIT)
                .until(() -> s.get(log).json().at("/deliveries/0/attempts").asInt() == 1);
        JsonNode failed = s.get(log).json().at("/deliveries/0");
        assertThat(failed.get("last_status").asInt()).isEqualTo(503);
        assertThat(failed.get("delivered").isNull()).isTrue();
        assertThat(Instant.parse(failed.get("next_attempt").asText()))
                .isEqualTo(s.clock.instant().plus(Duration.ofSeconds(10)));

        host.resetMappings();
        githubStubs();
        host.stubFor(github(patch(urlPathEqualTo("/repos/acme/widgets/check-runs/4242")))
                .withRequestBody(matchingJsonPath("$.status", equalTo("completed")))
                .withRequestBody(matchingJsonPath("$.conclusion", equalTo("success")))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":4242}")));
        s.clock.advance(Duration.ofSeconds(10));
        awaitDelivered(gh, 1);
        host.verify(1, postRequestedFor(urlPathEqualTo("/repos/acme/widgets/check-runs")));
        host.verify(1, patchRequestedFor(urlPathEqualTo("/repos/acme/widgets/check-runs/4242")));
        assertThat(s.get(log).json().at("/deliveries/0/attempts").asInt()).isEqualTo(2);
    }

    @Test
    void aCommentCreatedByANodeThatDiedBeforeRecordingItIsFoundByItsMarkerNotMadeAgain() {
        githubStubs();
        String gh = createHost("github", "acme/widgets", "ghs_stand-in");
        JsonNode project = s.get("/v0/projects/proj").json();
        String marker = ResultsSummary.marker(project.get("uuid").asText(), "feature", "box");
        host.stubFor(github(get(urlPathEqualTo("/repos/acme/widgets/issues/7/comments")))
                .atPriority(1)
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("[{\"id\":11,\"body\":\"unrelated\"},{\"id\":9001,\"body\":\"" + marker
                                + "\\nold\"}]")));

        run("feature", 10, Map.of("github_pr", 7));

        awaitDelivered(gh, 1);
        host.verify(0, postRequestedFor(urlPathEqualTo("/repos/acme/widgets/issues/7/comments")));
        host.verify(1, patchRequestedFor(urlPathEqualTo("/repos/acme/widgets/issues/comments/9001")));
    }

    @Test
    void aStickyCommentIsHeldByOneWriterAtATime() {
        createHost("github", "acme/widgets", "ghs_stand-in");
        long hostId = s.server
                .store()
                .alerts()
                .codeHosts()
                .hosts(projectId())
                .getFirst()
                .id();
        CodeHosts store = s.server.store().alerts().codeHosts();
        Instant now = s.clock.instant();
        var first = store.takeComment(hostId, 7, "feature", "box", now, now.plusSeconds(120));
        assertThat(first).isPresent();
        assertThat(store.takeComment(hostId, 7, "feature", "box", now, now.plusSeconds(120)))
                .as("held by the first writer")
                .isEmpty();
        assertThat(store.takeComment(hostId, 7, "feature", "other-box", now, now.plusSeconds(120)))
                .as("another testbed is another comment")
                .isPresent();
        store.releaseComment(first.get().id(), "9001", null, now);
        var again = store.takeComment(hostId, 7, "feature", "box", now, now.plusSeconds(120));
        assertThat(again).isPresent();
        assertThat(again.get().id()).isEqualTo(first.get().id());
        assertThat(again.get().remoteId()).isEqualTo("9001");
        // A writer that died: its hold ends at takenUntil.
        assertThat(store.takeComment(hostId, 7, "feature", "box", now.plusSeconds(120), now.plusSeconds(240)))
                .isPresent();
    }

    long projectId() {
        return s.server
                .store()
                .organizations()
                .findProject(ResourceId.of("proj"))
                .orElseThrow()
                .id();
    }

    @Test
    void aMergeRequestGetsACommitStatusAndOneStickyNote() {
        String project = "/projects/group%2Fwidgets";
        host.stubFor(post(urlPathEqualTo(project + "/statuses/" + HASH))
                .withHeader("PRIVATE-TOKEN", equalTo("glpat-stand-in"))
                .withRequestBody(matchingJsonPath("$.state", matching("pending|running|success|failed|canceled")))
                .withRequestBody(matchingJsonPath("$.name", equalTo("baton/box")))
                .withRequestBody(matchingJsonPath("$.description"))
                .willReturn(aResponse()
                        .withStatus(201)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":1,\"status\":\"success\"}")));
        host.stubFor(get(urlPathEqualTo(project + "/merge_requests/3/notes"))
                .withHeader("PRIVATE-TOKEN", equalTo("glpat-stand-in"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("[]")));
        host.stubFor(post(urlPathEqualTo(project + "/merge_requests/3/notes"))
                .withHeader("PRIVATE-TOKEN", equalTo("glpat-stand-in"))
                .withRequestBody(matchingJsonPath("$.body", matching("(?s)<!-- baton-results:.*")))
                .willReturn(aResponse()
                        .withStatus(201)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":301}")));
        host.stubFor(put(urlPathEqualTo(project + "/merge_requests/3/notes/301"))
                .withHeader("PRIVATE-TOKEN", equalTo("glpat-stand-in"))
                .withRequestBody(matchingJsonPath("$.body"))
                .willReturn(aResponse()
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"id\":301}")));
        String gl = createHost("gitlab", "group/widgets", "glpat-stand-in");

        run("feature", 10, Map.of("gitlab_mr", 3));
        awaitDelivered(gl, 1);
        run("feature", 11, Map.of("gitlab_mr", 3));
        awaitDelivered(gl, 2);

        host.verify(2, postRequestedFor(urlPathEqualTo(project + "/statuses/" + HASH)));
        host.verify(1, postRequestedFor(urlPathEqualTo(project + "/merge_requests/3/notes")));
        host.verify(1, putRequestedFor(urlPathEqualTo(project + "/merge_requests/3/notes/301")));
        assertThat(parse(host.findAll(postRequestedFor(urlPathEqualTo(project + "/statuses/" + HASH)))
                                .getFirst()
                                .getBodyAsString())
                        .get("state")
                        .asText())
                .isEqualTo("success");
    }

    /** PUT …/code-hosts/{host}: a rotated token on the same host (its sticky comments stay); kind and repository do not change. */
    @Test
    void aHostsTokenIsReplacedOnTheSameHostAndNeverShown() {
        String uuid = createHost("github", "acme/widgets", "ghs_old");
        String path = "/v0/projects/proj/code-hosts/" + uuid;
        TestServer.Response r = s.send("PUT", path, Map.of("token", "ghs_rotated", "api_url", host.baseUrl()), s.token);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        assertThat(r.json().get("uuid").asText()).isEqualTo(uuid);
        assertThat(r.json().get("repository").asText()).isEqualTo("acme/widgets");
        assertThat(r.text()).doesNotContain("ghs_rotated").doesNotContain("ghs_old");
        long project = s.server
                .store()
                .organizations()
                .findProject(dev.baton.protocol.id.ResourceId.of("proj"))
                .orElseThrow()
                .id();
        assertThat(s.server.store().alerts().codeHosts().findHost(project, uuid))
                .get()
                .satisfies(h -> {
                    assertThat(h.token()).isEqualTo("ghs_rotated");
                    assertThat(h.apiUrl()).isEqualTo(host.baseUrl());
                });
        // Without api_url the kind's default, as on creation.
        assertThat(s.send("PUT", path, Map.of("token", "ghs_again"), s.token)
                        .json()
                        .get("api_url")
                        .asText())
                .isEqualTo("https://api.github.com");

        TestServer.Response other = s.send("PUT", path, Map.of("token", "t", "repository", "acme/other"), s.token);
        assertThat(other.status()).isEqualTo(400);
        assertThat(other.json().get("field").asText()).isEqualTo("repository");
        TestServer.Response noToken = s.send("PUT", path, Map.of("kind", "github"), s.token);
        assertThat(noToken.status()).isEqualTo(400);
        assertThat(noToken.json().get("field").asText()).isEqualTo("token");
        TestServer.Response missing =
                s.send("PUT", "/v0/projects/proj/code-hosts/no-such-host", Map.of("token", "t"), s.token);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.code()).isEqualTo("code_host_not_found");
        assertThat(s.get("/v0/audit?action=code_host.updated").json().get("events"))
                .hasSize(2)
                .allSatisfy(e -> assertThat(e.toString()).doesNotContain("ghs_"));
    }

    @Test
    void aMalformedCodeHostIsRefusedAndNothingIsStored() {
        List<Map<String, Object>> bad = List.of(
                Map.of("kind", "bitbucket", "repository", "a/b", "token", "t"),
                Map.of("kind", "github", "repository", "no-slash", "token", "t"),
                Map.of("kind", "github", "repository", "a/b", "token", "has space"),
                Map.of("kind", "github", "repository", "a/b"),
                Map.of("kind", "gitlab", "repository", "g/p", "token", "t", "api_url", "ftp://x"));
        for (Map<String, Object> body : bad) {
            TestServer.Response r = s.post("/v0/projects/proj/code-hosts", body);
            assertThat(r.status()).as(body.toString()).isEqualTo(400);
            assertThat(r.json().get("field").asText()).isNotBlank();
        }
        assertThat(s.get("/v0/projects/proj/code-hosts").json().get("code_hosts"))
                .isEmpty();
        Map<String, Object> run = new HashMap<>(
                Map.of("project", "proj", "branch", "b", "testbed", "box", "adapter", "json", "github_pr", 0));
        run.put("start_time", T0.toString());
        run.put("end_time", T0.toString());
        run.put("results", List.of(Map.of("sort", Map.of("latency", Map.of("value", 1)))));
        TestServer.Response r = s.post("/v0/run", run);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("field").asText()).isEqualTo("github_pr");
    }

    static JsonNode parse(String body) {
        try {
            return Wire.mapper().readTree(body);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
