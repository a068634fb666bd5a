package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.server.testing.TestImages;
import dev.baton.web.http.TestServer;
import java.util.HashMap;
import java.util.Map;

/** Creates the rows most tests need, through the API itself. */
final class Fixtures {
    /** The digest of the image every project made here holds (tag {@code v1} of its root repository). */
    static final String DIGEST = TestImages.BENCH.digest();

    private Fixtures() {}

    static JsonNode created(TestServer.Response r) {
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        return r.json();
    }

    static JsonNode organization(TestServer s, String slug, String plan) {
        return created(s.post("/v0/organizations", Map.of("name", slug, "slug", slug, "plan", plan)));
    }

    static JsonNode project(TestServer s, String slug, String organization) {
        JsonNode project =
                created(s.post("/v0/projects", Map.of("name", slug, "slug", slug, "organization", organization)));
        TestImages.push(s.dataDir, ProjectUuid.parse(project.path("uuid").asText()), "", "v1", TestImages.BENCH);
        return project;
    }

    static JsonNode spec(TestServer s, String slug) {
        return created(s.post(
                "/v0/specs",
                Map.of(
                        "name",
                        slug,
                        "slug",
                        slug,
                        "architecture",
                        "x86_64",
                        "cpu",
                        2,
                        "memory",
                        1L << 30,
                        "disk",
                        10L << 30)));
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
