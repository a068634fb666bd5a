package dev.baton.ojs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.server.testing.MutableClock;
import dev.baton.store.OjsRow;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The background sweep advances workflows whose advance was missed: a node that stopped between a
 * job's ack and its workflow's advance leaves a finished step and no next one. The sweep looks at
 * a bounded number per run and continues where it stopped, so every workflow gets its turn.
 */
class OjsWorkflowSweepTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-05-01T00:00:00Z"));

    @TempDir
    Path dataDir;

    @Test
    void theSweepAdvancesWorkflowsWhoseStepFinishedWithoutAnAdvance() throws Exception {
        try (Store store = StoreFactory.open(null, dataDir)) {
            OjsJobs jobs = new OjsJobs(store, clock);
            List<String> workflows = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                ObjectNode wf = jobs.workflows()
                        .create(JSON.readTree(
                                "{\"type\":\"group\",\"jobs\":[{\"type\":\"g.only\",\"args\":[" + i + "]}]}"));
                workflows.add(wf.get("id").asText());
                OjsRow row = store.ojs()
                        .findJob(wf.get("jobs").get(0).get("job_id").asText())
                        .orElseThrow();
                ObjectNode doc = OjsJson.read(row.document());
                doc.put("state", "completed");
                // Completed in the store directly: the ack's own advance never ran.
                store.ojs()
                        .updateJob(
                                new OjsRow(
                                        row.seq(),
                                        row.id(),
                                        row.queue(),
                                        "completed",
                                        row.priority(),
                                        null,
                                        null,
                                        null,
                                        row.version(),
                                        OjsJson.write(doc)),
                                clock.instant());
            }
            assertThat(jobs.workflows().get(workflows.get(0)).get("state").asText())
                    .isEqualTo("running");
            jobs.workflows().advanceRunning();
            assertThat(store.ojs().workflowsInState("running", null, 100))
                    .as("one sweep looks at 50")
                    .hasSize(10);
            jobs.workflows().advanceRunning();
            assertThat(store.ojs().workflowsInState("running", null, 100)).isEmpty();
            for (String id : workflows) {
                assertThat(jobs.workflows().get(id).get("state").asText()).isEqualTo("completed");
                assertThat(jobs.workflows().get(id).get("jobs_completed").asInt())
                        .isEqualTo(1);
            }
        }
    }
}
