package dev.baton.alerts;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import dev.baton.store.CodeHostDelivery;
import dev.baton.store.CodeHosts;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * GitLab's REST API (docs/pull-requests.md): a commit status
 * ({@code POST /projects/{id}/statuses/{sha}}, one per testbed by its name, which GitLab
 * updates in place) and the sticky note on the merge request
 * ({@code GET}/{@code POST /projects/{id}/merge_requests/{iid}/notes}, {@code PUT .../notes/{note_id}}).
 * The project is its numeric id or its URL-encoded path; the token goes in {@code PRIVATE-TOKEN}.
 */
final class GitLabApi implements ReviewApi {
    private final HostHttp http;
    private final String project;

    GitLabApi(HttpClient client, String apiUrl, String repository, String token) {
        this.http = new HostHttp(client, Map.of("PRIVATE-TOKEN", token, "User-Agent", "baton"));
        this.project = GitHubApi.strip(apiUrl) + "/projects/" + URLEncoder.encode(repository, StandardCharsets.UTF_8);
    }

    @Override
    public void verdict(CodeHostDelivery d, ResultsSummary s, CodeHosts store)
            throws HostHttp.Failed, InterruptedException {
        if (d.hash() == null) return; // a status needs the commit
        ObjectNode body = Wire.mapper().createObjectNode();
        body.put("state", s.passed() ? "success" : "failed");
        body.put("name", "baton/" + d.testbed());
        // GitLab keeps at most 255 characters of a description.
        body.put("description", s.title().length() > 255 ? s.title().substring(0, 255) : s.title());
        http.send("POST", project + "/statuses/" + d.hash(), body);
    }

    @Override
    public String findComment(CodeHostDelivery d, String marker) throws HostHttp.Failed, InterruptedException {
        return ReviewApi.withMarker(http.send("GET", notes(d) + "?per_page=100&sort=asc", null), marker);
    }

    @Override
    public boolean updateComment(CodeHostDelivery d, String commentId, String body)
            throws HostHttp.Failed, InterruptedException {
        try {
            http.send("PUT", notes(d) + "/" + commentId, note(body));
            return true;
        } catch (HostHttp.Failed e) {
            if (e.status != null && e.status == 404) return false;
            throw e;
        }
    }

    @Override
    public String createComment(CodeHostDelivery d, String body) throws HostHttp.Failed, InterruptedException {
        return http.send("POST", notes(d), note(body)).path("id").asText();
    }

    private String notes(CodeHostDelivery d) {
        return project + "/merge_requests/" + d.number() + "/notes";
    }

    private static ObjectNode note(String body) {
        ObjectNode n = Wire.mapper().createObjectNode();
        n.put("body", body);
        return n;
    }
}
