package dev.baton.api;

import static dev.baton.api.SpecApiTest.assertField;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A spec's max_noise_cv through the API (decision 0052): set at create, changed and cleared by PATCH, validated, shown. */
class SpecNoiseApiTest {
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

    private static Map<String, Object> spec(String name, Object maxNoise) {
        Map<String, Object> body = new HashMap<>(
                Map.of("name", name, "architecture", "x86_64", "cpu", 2, "memory", 4L << 30, "disk", 20L << 30));
        if (maxNoise != null) body.put("max_noise_cv", maxNoise);
        return body;
    }

    @Test
    void setAtCreateChangedAndClearedByPatchAndShown() {
        assertThat(Fixtures.created(s.post("/v0/specs", spec("lab", null))).has("max_noise_cv"))
                .as("no limit unless set")
                .isFalse();
        assertThat(Fixtures.created(s.post("/v0/specs", spec("quiet", 0.02)))
                        .path("max_noise_cv")
                        .asDouble())
                .isEqualTo(0.02);
        assertThat(s.patch("/v0/specs/quiet", Map.of("name", "Quiet"))
                        .json()
                        .path("max_noise_cv")
                        .asDouble())
                .as("absent: unchanged")
                .isEqualTo(0.02);
        assertThat(s.patch("/v0/specs/quiet", Map.of("max_noise_cv", 0.05))
                        .json()
                        .path("max_noise_cv")
                        .asDouble())
                .isEqualTo(0.05);
        assertThat(s.patch("/v0/specs/quiet", Map.of("max_noise_cv", 0)).json().has("max_noise_cv"))
                .as("0 clears it")
                .isFalse();
        assertThat(s.get("/v0/specs/quiet").json().has("max_noise_cv")).isFalse();
    }

    @Test
    void outOfRangeIsRefusedAndARefusalChangesNothing() {
        assertField(s.post("/v0/specs", spec("bad", 0)), 400, "invalid_field", "max_noise_cv");
        assertField(s.post("/v0/specs", spec("bad", 1.5)), 400, "invalid_field", "max_noise_cv");
        assertThat(s.get("/v0/specs/bad").status()).isEqualTo(404);
        Fixtures.created(s.post("/v0/specs", spec("quiet", 0.02)));
        assertField(s.patch("/v0/specs/quiet", Map.of("max_noise_cv", -1)), 400, "invalid_field", "max_noise_cv");
        assertField(
                s.patch("/v0/specs/quiet", Map.of("name", "Renamed", "max_noise_cv", 2)),
                400,
                "invalid_field",
                "max_noise_cv");
        var shown = s.get("/v0/specs/quiet").json();
        assertThat(shown.path("max_noise_cv").asDouble()).isEqualTo(0.02);
        assertThat(shown.path("name").asText())
                .as("nothing of a refused PATCH applied")
                .isEqualTo("quiet");
    }
}
