package dev.baton.server.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.server.ojs.OjsTestServer.Answer;
import dev.baton.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pushes over HTTP on the assembled server, on both stores: a unique job under
 * {@code on_conflict: ignore}, and a push that is refused or ignored changing nothing, the
 * queue's rate limit included (docs/ojs.md, "Unique jobs and rate limits").
 */
class OjsPushTest {
    private static final String IGNORE = "\"unique\":{\"keys\":[\"type\",\"args\"],\"on_conflict\":\"ignore\"}";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));
    @TempDir
    Path dataDir;

    private static String job(int arg, String options) {
        return "{\"type\":\"u.job\",\"args\":[" + arg + "],\"options\":{\"queue\":\"u\"" + (options.isEmpty() ? "" : "," + options) + "}}";
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void anIgnoredDuplicateAnswersTheExistingJobAndStoresNothing(String dialect) throws Exception {
        try (OjsTestServer ojs = OjsTestServer.start(dialect, dataDir, clock)) {
            String first = ojs.push(job(1, IGNORE));
            Answer again = ojs.call("POST", "/ojs/v1/jobs", job(1, IGNORE));
            assertThat(again.status()).isEqualTo(200);
            assertThat(again.body().path("job").path("id").asText()).isEqualTo(first);
            assertThat(again.body().path("job").path("state").asText()).isEqualTo("available");
            assertThat(ojs.store().ojs().counts()).isEqualTo(Map.of("u", Map.of("available", 1L)));
            JsonNode enqueued = ojs.call("GET", "/ojs/v1/events?types=job.enqueued", null).body().path("events");
            assertThat(enqueued).extracting(e -> e.path("subject").asText()).containsExactly(first);

            assertThat(ojs.push(job(2, IGNORE))).as("other args: another key").isNotEqualTo(first);
            assertThat(ojs.fetch("u", "w").get(0).path("id").asText()).isEqualTo(first);
            Answer whileActive = ojs.call("POST", "/ojs/v1/jobs", job(1, IGNORE));
            assertThat(whileActive.status()).as("active is one of the default states").isEqualTo(200);
            assertThat(whileActive.body().path("job").path("id").asText()).isEqualTo(first);
            assertThat(ojs.ack(first, "w").status()).isEqualTo(200);
            assertThat(ojs.push(job(1, IGNORE))).as("a completed job no longer conflicts").isNotEqualTo(first);
            assertThat(ojs.store().ojs().counts().get("u")).isEqualTo(Map.of("available", 2L, "completed", 1L));
        }
    }

    /**
     * A refused push (an existing id, alone or in a batch; an id twice in one batch) and a
     * duplicate answered under {@code ignore} write nothing: not the job, not the rate limit it carries.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aPushThatEnqueuesNothingLeavesTheRateLimitAsItWas(String dialect) throws Exception {
        try (OjsTestServer ojs = OjsTestServer.start(dialect, dataDir, clock)) {
            String limit = "\"rate_limit\":{\"max_per_second\":1}";
            String id = "0190a000-0000-7000-8000-000000000001";
            ojs.push(job(1, IGNORE));
            assertThat(ojs.call("POST", "/ojs/v1/jobs", job(1, IGNORE + "," + limit)).status()).as("ignored").isEqualTo(200);
            ojs.push("{\"id\":\"" + id + "\",\"type\":\"u.job\",\"args\":[2],\"options\":{\"queue\":\"u\"}}");
            Answer existing = ojs.call("POST", "/ojs/v1/jobs", "{\"id\":\"" + id + "\",\"type\":\"u.job\",\"args\":[3],\"options\":{\"queue\":\"u\"," + limit + "}}");
            assertThat(existing.status()).isEqualTo(409);
            assertThat(existing.body().path("error").path("code").asText()).isEqualTo("duplicate");
            Answer batch = ojs.call("POST", "/ojs/v1/jobs/batch", "{\"jobs\":[" + job(4, limit)
                    + ",{\"id\":\"" + id + "\",\"type\":\"u.job\",\"args\":[5],\"options\":{\"queue\":\"u\"}}]}");
            assertThat(batch.status()).isEqualTo(409);
            String fresh = "0190a000-0000-7000-8000-000000000002";
            Answer twice = ojs.call("POST", "/ojs/v1/jobs/batch", "{\"jobs\":[{\"id\":\"" + fresh + "\",\"type\":\"u.job\",\"args\":[6]},"
                    + "{\"id\":\"" + fresh + "\",\"type\":\"u.job\",\"args\":[7]}]}");
            assertThat(twice.status()).as("one id twice in a batch").isEqualTo(409);

            assertThat(ojs.store().ojs().counts()).isEqualTo(Map.of("u", Map.of("available", 2L)));
            assertThat(ojs.store().ojs().rateLimitedQueues()).isEmpty();
            assertThat(ojs.fetch("u", "w", 10)).as("no limit holds the queue back").hasSize(2);
            // The same limit on a push that is enqueued does limit the queue.
            ojs.push(job(8, limit));
            ojs.push(job(9, ""));
            assertThat(ojs.fetch("u", "w", 10)).hasSize(1);
        }
    }
}
