package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.ojs.OjsTestServer.Answer;
import dev.baton.server.testing.MutableClock;
import dev.baton.server.testing.TestDatabases;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Pushes over HTTP on the assembled server, on both stores: a unique job under
 * {@code on_conflict: ignore}, and a push that is refused or ignored changing nothing, the
 * queue's rate limit included (docs/ojs.md, "Unique jobs and rate limits").
 */
@Tag("postgres")
class OjsPushTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String IGNORE = "\"unique\":{\"keys\":[\"type\",\"args\"],\"on_conflict\":\"ignore\"}";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));

    @TempDir
    Path dataDir;

    private static String job(int arg, String options) {
        return "{\"type\":\"u.job\",\"args\":[" + arg + "],\"options\":{\"queue\":\"u\""
                + (options.isEmpty() ? "" : "," + options) + "}}";
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
            JsonNode enqueued = ojs.call("GET", "/ojs/v1/events?types=job.enqueued", null)
                    .body()
                    .path("events");
            assertThat(enqueued).extracting(e -> e.path("subject").asText()).containsExactly(first);

            assertThat(ojs.push(job(2, IGNORE))).as("other args: another key").isNotEqualTo(first);
            assertThat(ojs.fetch("u", "w").get(0).path("id").asText()).isEqualTo(first);
            Answer whileActive = ojs.call("POST", "/ojs/v1/jobs", job(1, IGNORE));
            assertThat(whileActive.status())
                    .as("active is one of the default states")
                    .isEqualTo(200);
            assertThat(whileActive.body().path("job").path("id").asText()).isEqualTo(first);
            assertThat(ojs.ack(first, "w").status()).isEqualTo(200);
            assertThat(ojs.push(job(1, IGNORE)))
                    .as("a completed job no longer conflicts")
                    .isNotEqualTo(first);
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
            assertThat(ojs.call("POST", "/ojs/v1/jobs", job(1, IGNORE + "," + limit))
                            .status())
                    .as("ignored")
                    .isEqualTo(200);
            ojs.push("{\"id\":\"" + id + "\",\"type\":\"u.job\",\"args\":[2],\"options\":{\"queue\":\"u\"}}");
            Answer existing = ojs.call(
                    "POST",
                    "/ojs/v1/jobs",
                    "{\"id\":\"" + id + "\",\"type\":\"u.job\",\"args\":[3],\"options\":{\"queue\":\"u\"," + limit
                            + "}}");
            assertThat(existing.status()).isEqualTo(409);
            assertThat(existing.body().path("error").path("code").asText()).isEqualTo("duplicate");
            Answer batch = ojs.call(
                    "POST",
                    "/ojs/v1/jobs/batch",
                    "{\"jobs\":[" + job(4, limit) + ",{\"id\":\"" + id
                            + "\",\"type\":\"u.job\",\"args\":[5],\"options\":{\"queue\":\"u\"}}]}");
            assertThat(batch.status()).isEqualTo(409);
            String fresh = "0190a000-0000-7000-8000-000000000002";
            Answer twice = ojs.call(
                    "POST",
                    "/ojs/v1/jobs/batch",
                    "{\"jobs\":[{\"id\":\"" + fresh + "\",\"type\":\"u.job\",\"args\":[6]}," + "{\"id\":\"" + fresh
                            + "\",\"type\":\"u.job\",\"args\":[7]}]}");
            assertThat(twice.status()).as("one id twice in a batch").isEqualTo(409);

            assertThat(ojs.store().ojs().counts()).isEqualTo(Map.of("u", Map.of("available", 2L)));
            assertThat(ojs.store().ojs().rateLimitedQueues()).isEmpty();
            assertThat(ojs.fetch("u", "w", 10))
                    .as("no limit holds the queue back")
                    .hasSize(2);
            // The same limit on a push that is enqueued does limit the queue.
            ojs.push(job(8, limit));
            ojs.push(job(9, ""));
            assertThat(ojs.fetch("u", "w", 10)).hasSize(1);
        }
    }

    /**
     * A job and the rate limit it carries are one transaction: with the limit's write refused (a
     * trigger on {@code ojs_queue}, in the real database), the push enqueues nothing, so no fetch
     * can ever see the job without its limit. Written one after the other, the job would stay.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aJobAndItsRateLimitAreWrittenTogether(String dialect) throws Exception {
        String url = null;
        if (dialect.equals("postgresql")) {
            org.junit.jupiter.api.Assumptions.assumeTrue(
                    TestDatabases.postgresReachable(), "PostgreSQL not reachable: skipping");
            url = TestDatabases.freshPostgresSchema();
        }
        try (Store store = StoreFactory.open(url, dataDir)) {
            OjsJobs jobs = new OjsJobs(store, clock);
            String limit = "\"rate_limit\":{\"max_per_second\":1}";
            jobs.push(List.of(JSON.readTree(job(1, limit))));
            assertThat(store.ojs().rateLimitedQueues()).containsExactly("u");
            refuseQueueWrites(url);
            assertThatThrownBy(() -> jobs.push(List.of(JSON.readTree(job(2, limit)))))
                    .isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> jobs.push(List.of(JSON.readTree(job(3, limit + "," + IGNORE)))))
                    .isInstanceOf(RuntimeException.class);
            assertThat(store.ojs().counts()).as("only the first job").isEqualTo(Map.of("u", Map.of("available", 1L)));
            jobs.push(List.of(JSON.readTree(job(4, ""))));
            assertThat(store.ojs().counts())
                    .as("a job without a limit writes no queue row")
                    .isEqualTo(Map.of("u", Map.of("available", 2L)));
        }
    }

    /** Makes every write of a queue row (rate limits, pauses) fail in the database itself. */
    private void refuseQueueWrites(String postgresUrl) throws Exception {
        if (postgresUrl == null) {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dataDir.resolve("baton.db"));
                    Statement s = c.createStatement()) {
                s.execute(
                        "CREATE TRIGGER refuse_insert BEFORE INSERT ON ojs_queue BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
                s.execute(
                        "CREATE TRIGGER refuse_update BEFORE UPDATE ON ojs_queue BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
            }
        } else {
            try (Connection c = DriverManager.getConnection("jdbc:" + postgresUrl);
                    Statement s = c.createStatement()) {
                s.execute(
                        "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql");
                s.execute(
                        "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON ojs_queue FOR EACH ROW EXECUTE FUNCTION refuse()");
            }
        }
    }
}
