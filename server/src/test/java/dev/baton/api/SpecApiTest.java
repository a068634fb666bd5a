package dev.baton.api;

import static dev.baton.api.RunnerApiTest.slugs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpecApiTest {
    @TempDir
    Path dir;

    TestServer s;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
    }

    @AfterEach
    void stop() {
        s.close();
    }

    private static Map<String, Object> spec(Map<String, Object> overrides) {
        Map<String, Object> body = new HashMap<>(
                Map.of("name", "Small x86", "architecture", "x86_64", "cpu", 2, "memory", 4L << 30, "disk", 20L << 30));
        body.putAll(overrides);
        return body;
    }

    @Test
    void createGetAndList() {
        JsonNode created = Fixtures.created(s.post("/v0/specs", spec(Map.of("network", true))));
        assertThat(created.path("slug").asText()).isEqualTo("small-x86");
        assertThat(created.path("architecture").asText()).isEqualTo("x86_64");
        assertThat(created.path("cpu").asInt()).isEqualTo(2);
        assertThat(created.path("memory").asLong()).isEqualTo(4L << 30);
        assertThat(created.path("disk").asLong()).isEqualTo(20L << 30);
        assertThat(created.path("network").asBoolean()).isTrue();
        JsonNode arm = Fixtures.created(s.post("/v0/specs", spec(Map.of("name", "arm", "architecture", "aarch64"))));
        assertThat(arm.path("network").asBoolean())
                .as("network defaults to false")
                .isFalse();

        assertThat(s.get("/v0/specs/small-x86").json().path("uuid").asText())
                .isEqualTo(created.path("uuid").asText());
        assertThat(s.get("/v0/specs/" + created.path("uuid").asText())
                        .json()
                        .path("slug")
                        .asText())
                .isEqualTo("small-x86");
        assertThat(s.get("/v0/specs/none").code()).isEqualTo("spec_not_found");
        assertThat(slugs(s.get("/v0/specs").json())).containsExactlyInAnyOrder("small-x86", "arm");
    }

    @Test
    void createValidatesEveryField() {
        assertField(s.post("/v0/specs", spec(Map.of("architecture", "riscv"))), 400, "invalid_field", "architecture");
        assertField(s.post("/v0/specs", spec(Map.of("cpu", 0))), 400, "invalid_field", "cpu");
        assertField(s.post("/v0/specs", spec(Map.of("cpu", -1))), 400, "invalid_field", "cpu");
        assertField(s.post("/v0/specs", spec(Map.of("cpu", 3_000_000_000L))), 400, "invalid_json", "cpu");
        assertField(s.post("/v0/specs", spec(Map.of("memory", 0))), 400, "invalid_field", "memory");
        assertField(s.post("/v0/specs", spec(Map.of("disk", -5))), 400, "invalid_field", "disk");
        assertField(s.post("/v0/specs", spec(Map.of("network", "yes"))), 400, "invalid_json", "network");
        Map<String, Object> noDisk = spec(Map.of());
        noDisk.remove("disk");
        assertField(s.post("/v0/specs", noDisk), 400, "missing_field", "disk");
        Map<String, Object> noArch = spec(Map.of());
        noArch.remove("architecture");
        assertField(s.post("/v0/specs", noArch), 400, "missing_field", "architecture");
        assertThat(s.get("/v0/specs?archived=true").json()).isEmpty();
    }

    @Test
    void patchArchivesAndListHidesArchived() {
        Fixtures.spec(s, "a");
        Fixtures.spec(s, "b");
        JsonNode archived =
                s.patch("/v0/specs/a", Map.of("archived", true, "name", "A")).json();
        assertThat(archived.path("archived").asText()).isNotEmpty();
        assertThat(archived.path("name").asText()).isEqualTo("A");
        assertThat(slugs(s.get("/v0/specs").json())).containsExactly("b");
        assertThat(slugs(s.get("/v0/specs?archived=true").json())).containsExactlyInAnyOrder("a", "b");
        assertThat(s.patch("/v0/specs/a", Map.of("slug", "b")).code()).isEqualTo("slug_taken");
        assertThat(s.patch("/v0/specs/a", Map.of("slug", "a2"))
                        .json()
                        .path("slug")
                        .asText())
                .isEqualTo("a2");
        assertThat(s.patch("/v0/specs/a", Map.of("name", "x")).code()).isEqualTo("spec_not_found");
    }

    @Test
    void deleteWorksUntilAJobReferencesTheSpec() {
        Fixtures.spec(s, "unused");
        assertThat(s.delete("/v0/specs/unused").status()).isEqualTo(204);
        assertThat(s.get("/v0/specs/unused").status()).isEqualTo(404);

        Fixtures.organization(s, "org", "team");
        Fixtures.project(s, "proj", "org");
        Fixtures.spec(s, "used");
        Fixtures.created(s.post("/v0/run", Fixtures.runBody("proj", "used", Map.of())));
        var refused = s.delete("/v0/specs/used");
        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.code()).isEqualTo("spec_in_use");
        assertThat(s.get("/v0/specs/used").status()).isEqualTo(200);
        assertThat(s.delete("/v0/specs/nope").code()).isEqualTo("spec_not_found");
    }

    static void assertField(TestServer.Response r, int status, String code, String field) {
        assertThat(r.status()).as(r.text()).isEqualTo(status);
        assertThat(r.code()).as(r.text()).isEqualTo(code);
        assertThat(r.json().path("field").asText()).as(r.text()).isEqualTo(field);
        assertThat(r.json().path("message").asText()).isNotBlank();
    }
}
