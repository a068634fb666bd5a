package dev.baton.api;

import static dev.baton.api.SpecApiTest.assertField;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A spec's require_clean_fingerprint through the API: set at create, changed by PATCH, validated, shown. */
class SpecFingerprintApiTest {
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

    private static Map<String, Object> spec(String name, Object requireClean) {
        Map<String, Object> body = new java.util.HashMap<>(
                Map.of("name", name, "architecture", "x86_64", "cpu", 2, "memory", 4L << 30, "disk", 20L << 30));
        if (requireClean != null) body.put("require_clean_fingerprint", requireClean);
        return body;
    }

    @Test
    void setAtCreateChangedByPatchAndShown() {
        assertThat(Fixtures.created(s.post("/v0/specs", spec("lab", null)))
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .as("defaults to false")
                .isFalse();
        JsonNode strict = Fixtures.created(s.post("/v0/specs", spec("bare metal", true)));
        assertThat(strict.path("require_clean_fingerprint").asBoolean()).isTrue();
        assertThat(s.get("/v0/specs/bare-metal")
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .isTrue();

        assertThat(s.patch("/v0/specs/bare-metal", Map.of("name", "Bare metal"))
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .as("absent: unchanged")
                .isTrue();
        assertThat(s.patch("/v0/specs/bare-metal", Map.of("require_clean_fingerprint", false))
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .isFalse();
        assertThat(s.get("/v0/specs/bare-metal")
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .isFalse();
        assertThat(s.patch("/v0/specs/lab", Map.of("require_clean_fingerprint", true))
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .isTrue();
    }

    @Test
    void onlyABooleanIsAcceptedAndARefusalChangesNothing() {
        assertField(s.post("/v0/specs", spec("bad", "yes")), 400, "invalid_json", "require_clean_fingerprint");
        assertThat(s.get("/v0/specs/bad").status()).isEqualTo(404);
        Fixtures.created(s.post("/v0/specs", spec("lab", true)));
        assertField(
                s.patch("/v0/specs/lab", Map.of("require_clean_fingerprint", 0)),
                400,
                "invalid_json",
                "require_clean_fingerprint");
        assertThat(s.get("/v0/specs/lab")
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .isTrue();
    }
}
