package dev.baton.api;

import static dev.baton.api.Fixtures.created;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /v0/runners} with {@code ephemeral} and {@code job} (issue 43): who may be bound to what. */
class SingleJobRunnerApiTest {
    @TempDir
    Path dir;

    TestServer s;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
        Fixtures.organization(s, "org", "free");
        Fixtures.project(s, "proj", "org");
        Fixtures.spec(s, "small");
    }

    @AfterEach
    void stop() {
        s.close();
    }

    private String pendingJob() {
        return created(s.post("/v0/run", Fixtures.runBody("proj", "small", Map.of())))
                .path("job")
                .path("uuid")
                .asText();
    }

    @Test
    void aSingleJobRunnerSaysSoAndAPlainOneDoesNot() {
        JsonNode single = created(s.post("/v0/runners", Map.of("name", "once", "ephemeral", true)));
        assertThat(single.at("/runner/ephemeral").asBoolean()).isTrue();
        assertThat(s.get("/v0/runners/once").json().path("ephemeral").asBoolean())
                .isTrue();
        assertThat(Fixtures.runner(s, "plain").path("runner").has("ephemeral")).isFalse();
    }

    @Test
    void aRunnerIsBoundToAPendingJobOnlyAndOnlyOneToAJob() {
        String job = pendingJob();
        created(s.post("/v0/runners", Map.of("name", "for-job", "ephemeral", true, "job", job)));

        var second = s.post("/v0/runners", Map.of("name", "again", "ephemeral", true, "job", job));
        assertThat(second.status()).isEqualTo(409);
        assertThat(second.code()).isEqualTo("job_not_pending");
        assertThat(s.get("/v0/runners/again").status()).isEqualTo(404); // nothing was written

        var notSingle = s.post("/v0/runners", Map.of("name", "plain", "job", pendingJob()));
        assertThat(notSingle.status()).isEqualTo(400);
        assertThat(notSingle.code()).isEqualTo("invalid_field");

        var missing = s.post(
                "/v0/runners",
                Map.of("name", "nobody", "ephemeral", true, "job", "00000000-0000-0000-0000-000000000000"));
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.code()).isEqualTo("job_not_found");

        String canceled = pendingJob();
        s.post("/v0/projects/proj/jobs/" + canceled + "/cancel", null);
        var ended = s.post("/v0/runners", Map.of("name", "late", "ephemeral", true, "job", canceled));
        assertThat(ended.status()).isEqualTo(409);
        assertThat(ended.code()).isEqualTo("job_not_pending");
    }
}
