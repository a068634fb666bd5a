package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.ojs.OjsTestServer.Answer;
import dev.baton.server.testing.MutableClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OJS workflows over HTTP on the assembled server, on both stores: a batch's callbacks, and
 * cancelling a workflow that is still running (docs/ojs.md, "Workflows"). The conformance suite
 * checks these too, but only where its data is at hand.
 */
@Tag("postgres")
class OjsWorkflowTest {
    private static final String CALLBACKS = "\"callbacks\":{"
            + "\"on_complete\":{\"type\":\"cb.complete\",\"args\":[\"complete\"],\"options\":{\"queue\":\"callbacks\"}},"
            + "\"on_success\":{\"type\":\"cb.success\",\"args\":[\"success\"],\"options\":{\"queue\":\"callbacks\"}},"
            + "\"on_failure\":{\"type\":\"cb.failure\",\"args\":[\"failure\"],\"options\":{\"queue\":\"callbacks\"}}}";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));

    @TempDir
    Path dataDir;

    private static String batchOf(int jobs) {
        StringBuilder body = new StringBuilder("{\"type\":\"batch\",\"name\":\"b\",\"jobs\":[");
        for (int i = 0; i < jobs; i++) {
            body.append(i > 0 ? "," : "")
                    .append("{\"type\":\"b.item\",\"args\":[")
                    .append(i)
                    .append("],\"options\":{\"queue\":\"items\",\"retry\":{\"max_attempts\":1}}}");
        }
        return body.append("],").append(CALLBACKS).append("}").toString();
    }

    private static String create(OjsTestServer ojs, String body) throws Exception {
        Answer created = ojs.call("POST", "/ojs/v1/workflows", body);
        assertThat(created.status()).as(created.raw().body()).isEqualTo(201);
        return created.body().path("workflow").path("id").asText();
    }

    private static JsonNode workflow(OjsTestServer ojs, String id) throws Exception {
        return ojs.call("GET", "/ojs/v1/workflows/" + id, null).body().path("workflow");
    }

    /** Every callback job fired, each naming its workflow and its callback; the ones fetched in order. */
    private static void assertCallbacks(OjsTestServer ojs, String workflowId, List<String> kinds) throws Exception {
        JsonNode fired = ojs.fetch("callbacks", "cb", 10);
        assertThat(fired)
                .extracting(j -> j.path("type").asText())
                .containsExactlyElementsOf(kinds.stream().map(k -> "cb." + k).toList());
        for (JsonNode job : fired) {
            String kind = job.path("args").get(0).asText();
            assertThat(job.path("workflow_callback").path("workflow_id").asText())
                    .isEqualTo(workflowId);
            assertThat(job.path("workflow_callback").path("callback").asText()).isEqualTo("on_" + kind);
            assertThat(workflow(ojs, workflowId)
                            .path("callback_jobs")
                            .path("on_" + kind)
                            .asText())
                    .isEqualTo(job.path("id").asText());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aBatchWhoseJobsAllCompletedFiresOnCompleteAndOnSuccess(String dialect) throws Exception {
        try (OjsTestServer ojs = OjsTestServer.start(dialect, dataDir, clock)) {
            String wf = create(ojs, batchOf(2));
            JsonNode items = ojs.fetch("items", "w", 2);
            assertThat(items).hasSize(2);
            assertThat(ojs.ack(items.get(0).path("id").asText(), "w").status()).isEqualTo(200);
            assertThat(ojs.fetch("callbacks", "cb", 10))
                    .as("no callback while a job of the batch runs")
                    .isEmpty();
            assertThat(ojs.ack(items.get(1).path("id").asText(), "w").status()).isEqualTo(200);
            assertCallbacks(ojs, wf, List.of("complete", "success"));
            JsonNode done = workflow(ojs, wf);
            assertThat(done.path("state").asText()).isEqualTo("completed");
            assertThat(done.path("jobs_completed").asInt()).isEqualTo(2);
            assertThat(done.path("jobs_failed").asInt()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void aBatchWithAFailedJobFiresOnCompleteAndOnFailure(String dialect) throws Exception {
        try (OjsTestServer ojs = OjsTestServer.start(dialect, dataDir, clock)) {
            String wf = create(ojs, batchOf(2));
            JsonNode items = ojs.fetch("items", "w", 2);
            assertThat(ojs.ack(items.get(0).path("id").asText(), "w").status()).isEqualTo(200);
            Answer nack = ojs.call(
                    "POST",
                    "/ojs/v1/workers/nack",
                    "{\"job_id\":\"" + items.get(1).path("id").asText()
                            + "\",\"worker_id\":\"w\",\"error\":{\"code\":\"boom\",\"message\":\"m\"}}");
            assertThat(nack.body().path("state").asText())
                    .as("one attempt only")
                    .isEqualTo("discarded");
            assertCallbacks(ojs, wf, List.of("complete", "failure"));
            JsonNode done = workflow(ojs, wf);
            assertThat(done.path("state").asText()).isEqualTo("failed");
            assertThat(done.path("jobs_completed").asInt()).isEqualTo(1);
            assertThat(done.path("jobs_failed").asInt()).isEqualTo(1);
        }
    }

    /**
     * Cancelling a running batch: a completed job stays completed, the running one and the waiting
     * one are cancelled (the running one's worker can then neither ack nor nack it), and nothing
     * is enqueued afterwards, not even the callbacks.
     */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void cancellingARunningBatchCancelsItsUnfinishedJobsAndFiresNoCallback(String dialect) throws Exception {
        try (OjsTestServer ojs = OjsTestServer.start(dialect, dataDir, clock)) {
            String wf = create(ojs, batchOf(3));
            JsonNode items = ojs.fetch("items", "w", 2);
            String done = items.get(0).path("id").asText();
            String running = items.get(1).path("id").asText();
            assertThat(ojs.ack(done, "w").status()).isEqualTo(200);
            Answer cancelled = ojs.call("DELETE", "/ojs/v1/workflows/" + wf, null);
            assertThat(cancelled.status()).as(cancelled.raw().body()).isEqualTo(200);
            assertThat(cancelled.body().path("workflow").path("state").asText()).isEqualTo("cancelled");

            List<String> ids = List.of(
                    done,
                    running,
                    workflow(ojs, wf).path("jobs").get(2).path("job_id").asText());
            assertThat(ids).extracting(ojs::state).containsExactly("completed", "cancelled", "cancelled");
            assertThat(ojs.ack(running, "w").status())
                    .as("the cancelled job's worker")
                    .isEqualTo(409);
            assertThat(ojs.call("POST", "/ojs/v1/workers/nack", "{\"job_id\":\"" + running + "\",\"worker_id\":\"w\"}")
                            .status())
                    .isEqualTo(409);
            assertThat(ojs.fetch("items", "w", 10)).isEmpty();
            assertThat(ojs.fetch("callbacks", "cb", 10))
                    .as("a cancelled batch fires no callback")
                    .isEmpty();
            assertThat(ojs.store().ojs().counts())
                    .containsOnlyKeys("items")
                    .containsEntry("items", Map.of("completed", 1L, "cancelled", 2L));
            assertThat(workflow(ojs, wf).path("state").asText()).isEqualTo("cancelled");
            assertThat(ojs.call("DELETE", "/ojs/v1/workflows/" + wf, null).status())
                    .as("cancelled already")
                    .isEqualTo(409);
        }
    }

    /** Cancelling a chain whose second step runs: that step is cancelled, the third is never enqueued. */
    @ParameterizedTest
    @ValueSource(strings = {"sqlite", "postgresql"})
    void cancellingARunningChainEnqueuesNoFurtherStep(String dialect) throws Exception {
        try (OjsTestServer ojs = OjsTestServer.start(dialect, dataDir, clock)) {
            String wf = create(
                    ojs,
                    "{\"type\":\"chain\",\"steps\":["
                            + "{\"type\":\"c.zero\",\"args\":[0],\"options\":{\"queue\":\"c\"}},"
                            + "{\"type\":\"c.one\",\"args\":[1],\"options\":{\"queue\":\"c\"}},"
                            + "{\"type\":\"c.two\",\"args\":[2],\"options\":{\"queue\":\"c\"}}]}");
            assertThat(ojs.ack(ojs.fetch("c", "w").get(0).path("id").asText(), "w")
                            .status())
                    .isEqualTo(200);
            JsonNode one = ojs.fetch("c", "w").get(0);
            assertThat(one.path("type").asText()).isEqualTo("c.one");
            assertThat(ojs.call("DELETE", "/ojs/v1/workflows/" + wf, null).status())
                    .isEqualTo(200);
            assertThat(ojs.state(one.path("id").asText())).isEqualTo("cancelled");
            assertThat(ojs.ack(one.path("id").asText(), "w").status()).isEqualTo(409);
            assertThat(ojs.fetch("c", "w", 10)).isEmpty();
            JsonNode cancelled = workflow(ojs, wf);
            assertThat(cancelled.path("state").asText()).isEqualTo("cancelled");
            assertThat(cancelled.path("steps").get(2).path("job_id").isNull())
                    .as("step two never enqueued")
                    .isTrue();
            assertThat(ojs.store().ojs().counts().get("c")).isEqualTo(Map.of("completed", 1L, "cancelled", 1L));
        }
    }
}
