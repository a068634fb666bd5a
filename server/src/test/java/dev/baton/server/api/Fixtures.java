package dev.baton.server.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.server.http.TestServer;
import java.util.HashMap;
import java.util.Map;

/** Creates the rows most tests need, through the API itself. */
final class Fixtures {
    static final String DIGEST = "sha256:" + "ab".repeat(32);

    private Fixtures() {}

    static JsonNode created(TestServer.Response r) {
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json();
    }

    static JsonNode organization(TestServer s, String slug, String plan) {
        return created(s.post("/v0/organizations", Map.of("name", slug, "slug", slug, "plan", plan)));
    }

    static JsonNode project(TestServer s, String slug, String organization) {
        return created(s.post("/v0/projects", Map.of("name", slug, "slug", slug, "organization", organization)));
    }

    static JsonNode spec(TestServer s, String slug) {
        return created(s.post("/v0/specs", Map.of("name", slug, "slug", slug, "architecture", "x86_64", "cpu", 2, "memory", 1L << 30, "disk", 10L << 30)));
    }

    static JsonNode runner(TestServer s, String slug) {
        return created(s.post("/v0/runners", Map.of("name", slug, "slug", slug)));
    }

    /** A runner-mode run body for project and spec, with extra fields merged in. */
    static Map<String, Object> runBody(String project, String spec, Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>();
        body.put("project", project);
        body.put("image", DIGEST);
        body.put("spec", spec);
        body.putAll(extra);
        return body;
    }
}
