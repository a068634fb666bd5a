package dev.baton.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import dev.baton.store.CodeHostDelivery;
import dev.baton.store.CodeHosts;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.Map;

/**
 * GitHub's REST API (docs/pull-requests.md): a check run on the commit
 * ({@code POST /repos/{owner}/{repo}/check-runs}, then {@code PATCH .../check-runs/{id}}) and the
 * sticky comment on the pull request ({@code GET}/{@code POST /repos/{owner}/{repo}/issues/{n}/comments},
 * {@code PATCH /repos/{owner}/{repo}/issues/comments/{id}}). The token is sent as a bearer token.
 */
final class GitHubApi implements ReviewApi {
    static final String API_VERSION = "2022-11-28";

    private final HostHttp http;
    private final String repo;
    private final Clock clock;

    GitHubApi(HttpClient client, String apiUrl, String repository, String token, Clock clock) {
        this.http = new HostHttp(
                client,
                Map.of(
                        "Authorization",
                        "Bearer " + token,
                        "Accept",
                        "application/vnd.github+json",
                        "X-GitHub-Api-Version",
                        API_VERSION,
                        "User-Agent",
                        "baton"));
        this.repo = strip(apiUrl) + "/repos/" + repository;
        this.clock = clock;
    }

    static String strip(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    @Override
    public void verdict(CodeHostDelivery d, ResultsSummary s, CodeHosts store)
            throws HostHttp.Failed, InterruptedException {
        if (d.hash() == null) return; // a check run needs the commit
        ObjectNode body = Wire.mapper().createObjectNode();
        body.put("name", "Baton: " + d.testbed());
        body.put("external_id", d.reportUuid());
        body.put("status", "completed");
        body.put("conclusion", s.passed() ? "success" : "failure");
        body.put("completed_at", clock.instant().toString());
        ObjectNode output = body.putObject("output");
        output.put("title", s.title());
        output.put("summary", s.markdown());
        if (d.checkRun() != null) {
            http.send("PATCH", repo + "/check-runs/" + d.checkRun(), body);
            return;
        }
        body.put("head_sha", d.hash());
        JsonNode created = http.send("POST", repo + "/check-runs", body);
        store.setCheckRun(d.id(), created.path("id").asText());
    }

    @Override
    public String findComment(CodeHostDelivery d, String marker) throws HostHttp.Failed, InterruptedException {
        return ReviewApi.withMarker(
                http.send("GET", repo + "/issues/" + d.number() + "/comments?per_page=100", null), marker);
    }

    @Override
    public boolean updateComment(CodeHostDelivery d, String commentId, String body)
            throws HostHttp.Failed, InterruptedException {
        try {
            http.send("PATCH", repo + "/issues/comments/" + commentId, comment(body));
            return true;
        } catch (HostHttp.Failed e) {
            if (e.status != null && e.status == 404) return false;
            throw e;
        }
    }

    @Override
    public String createComment(CodeHostDelivery d, String body) throws HostHttp.Failed, InterruptedException {
        return http.send("POST", repo + "/issues/" + d.number() + "/comments", comment(body))
                .path("id")
                .asText();
    }

    private static ObjectNode comment(String body) {
        ObjectNode n = Wire.mapper().createObjectNode();
        n.put("body", body);
        return n;
    }
}
