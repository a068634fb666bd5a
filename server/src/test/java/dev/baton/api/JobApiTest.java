package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.dispatch.output.ObjectOutputStore;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.Job;
import dev.baton.store.Store;
import dev.baton.store.TestClaims;
import dev.baton.store.blob.FileObjects;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobApiTest {
    @TempDir
    Path dir;

    TestServer s;
    Store store;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
        store = s.server.store();
        Fixtures.organization(s, "org", "team");
        Fixtures.project(s, "proj", "org");
        Fixtures.project(s, "other", "org");
        Fixtures.spec(s, "small");
        Fixtures.spec(s, "big");
        Fixtures.runner(s, "r1");
        s.post("/v0/runners/r1/specs", Map.of("spec", "small"));
    }

    @AfterEach
    void stop() {
        s.close();
    }

    private String submit(String project, String spec) {
        s.clock.advance(Duration.ofSeconds(1));
        return Fixtures.created(s.post("/v0/run", Fixtures.runBody(project, spec, Map.of())))
                .path("job")
                .path("uuid")
                .asText();
    }

    /** Claims the oldest pending small job for r1 the way dispatch would, through the real store. */
    private Job claim() {
        long runner =
                store.runners().findRunner(ResourceId.of("r1")).orElseThrow().id();
        return TestClaims.claim(store, runner, LeaseId.random(), s.clock.instant())
                .orElseThrow();
    }

    private static List<String> uuids(JsonNode page) {
        List<String> out = new ArrayList<>();
        page.path("jobs").forEach(j -> out.add(j.path("uuid").asText()));
        return out;
    }

    @Test
    void listIsNewestFirstFilteredAndPaginated() {
        String a = submit("proj", "small");
        String b = submit("proj", "big");
        String c = submit("proj", "small");
        submit("other", "small");
        claim(); // a is claimed by r1

        JsonNode all = s.get("/v0/projects/proj/jobs").json();
        assertThat(uuids(all)).containsExactly(c, b, a);
        assertThat(all.has("next_offset")).isFalse();

        assertThat(uuids(s.get("/v0/projects/proj/jobs?status=pending").json())).containsExactly(c, b);
        assertThat(uuids(s.get("/v0/projects/proj/jobs?status=claimed").json())).containsExactly(a);
        assertThat(uuids(s.get("/v0/projects/proj/jobs?spec=big").json())).containsExactly(b);
        assertThat(uuids(s.get("/v0/projects/proj/jobs?runner=r1").json())).containsExactly(a);
        JsonNode claimed =
                s.get("/v0/projects/proj/jobs?runner=r1").json().path("jobs").get(0);
        assertThat(claimed.path("runner").asText())
                .isEqualTo(s.get("/v0/runners/r1").json().path("uuid").asText());
        assertThat(claimed.path("attempt").asInt()).isEqualTo(1);
        assertThat(claimed.toString()).doesNotContain("lease");

        JsonNode page1 = s.get("/v0/projects/proj/jobs?limit=2").json();
        assertThat(uuids(page1)).containsExactly(c, b);
        assertThat(page1.path("next_offset").asInt()).isEqualTo(2);
        JsonNode page2 = s.get("/v0/projects/proj/jobs?limit=2&offset=2").json();
        assertThat(uuids(page2)).containsExactly(a);
        assertThat(page2.has("next_offset")).isFalse();

        assertThat(s.get("/v0/projects/proj/jobs?status=lost").code()).isEqualTo("invalid_parameter");
        assertThat(s.get("/v0/projects/proj/jobs?limit=0").code()).isEqualTo("invalid_parameter");
        assertThat(s.get("/v0/projects/proj/jobs?limit=501").code()).isEqualTo("invalid_parameter");
        assertThat(s.get("/v0/projects/proj/jobs?offset=-1").code()).isEqualTo("invalid_parameter");
        assertThat(s.get("/v0/projects/proj/jobs?spec=nope").code()).isEqualTo("spec_not_found");
        assertThat(s.get("/v0/projects/nope/jobs").code()).isEqualTo("project_not_found");
    }

    @Test
    void getShowsTheJobAndItsStoredOutput() throws Exception {
        String uuid = submit("proj", "small");
        JsonNode job = s.get("/v0/projects/proj/jobs/" + uuid).json();
        assertThat(job.path("status").asText()).isEqualTo("pending");
        assertThat(job.has("output")).isFalse();
        assertThat(job.path("spec").asText())
                .isEqualTo(s.get("/v0/specs/small").json().path("uuid").asText());

        ProjectUuid project =
                ProjectUuid.parse(s.get("/v0/projects/proj").json().path("uuid").asText());
        // Stored at the job's one key, as before outputs were kept per attempt: still shown (the read fallback).
        new FileObjects(dir.resolve("storage"))
                .write(
                        ObjectOutputStore.legacyKey(project, JobUuid.parse(uuid)),
                        Wire.mapper()
                                .writeValueAsBytes(new JobOutput(
                                        List.of(new IterationResult(0, "out", "err", Map.of("r.json", "{}"))), null)));
        JsonNode withOutput = s.get("/v0/projects/proj/jobs/" + uuid).json();
        assertThat(withOutput
                        .path("output")
                        .path("results")
                        .get(0)
                        .path("stdout")
                        .asText())
                .isEqualTo("out");
        assertThat(withOutput
                        .path("output")
                        .path("results")
                        .get(0)
                        .path("exit_code")
                        .asInt())
                .isZero();

        assertThat(s.get("/v0/projects/other/jobs/" + uuid).code())
                .as("another project's job")
                .isEqualTo("job_not_found");
        assertThat(s.get("/v0/projects/proj/jobs/" + JobUuid.random()).code()).isEqualTo("job_not_found");
        assertThat(s.get("/v0/projects/proj/jobs/not-a-uuid").code()).isEqualTo("job_not_found");
    }

    @Test
    void cancelPendingClaimedAndRunningJobsAndRefuseFinishedOnes() {
        String pending = submit("proj", "small");
        JsonNode canceled =
                s.post("/v0/projects/proj/jobs/" + pending + "/cancel", null).json();
        assertThat(canceled.path("status").asText()).isEqualTo("canceled");
        assertThat(s.canceled).extracting(j -> j.uuid().toString()).containsExactly(pending);

        String claimedUuid = submit("proj", "small");
        Job claimed = claim();
        assertThat(claimed.uuid().toString()).isEqualTo(claimedUuid);
        assertThat(s.post("/v0/projects/proj/jobs/" + claimedUuid + "/cancel", null)
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("canceled");

        String runningUuid = submit("proj", "small");
        Job running = claim();
        assertThat(store.transitions()
                        .start(running.uuid(), running.lease(), s.clock.instant())
                        .applied())
                .isTrue();
        assertThat(s.post("/v0/projects/proj/jobs/" + runningUuid + "/cancel", null)
                        .status())
                .isEqualTo(200);
        assertThat(s.canceled).hasSize(3);
        assertThat(store.runs().findJob(running.uuid()).orElseThrow().status().wireName())
                .isEqualTo("canceled");
        Job before = s.canceledBefore.get(2);
        assertThat(before.status().wireName()).isEqualTo("running");
        assertThat(before.runnerId()).isEqualTo(running.runnerId());
        assertThat(before.holds(running.lease()))
                .as("dispatch learns the lease to cancel")
                .isTrue();

        var again = s.post("/v0/projects/proj/jobs/" + pending + "/cancel", null);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.code()).isEqualTo("job_not_cancelable");

        String completedUuid = submit("proj", "small");
        Job done = claim();
        store.transitions().start(done.uuid(), done.lease(), s.clock.instant());
        assertThat(store.transitions()
                        .complete(done.uuid(), done.lease(), s.clock.instant())
                        .applied())
                .isTrue();
        var finished = s.post("/v0/projects/proj/jobs/" + completedUuid + "/cancel", null);
        assertThat(finished.status()).isEqualTo(409);
        assertThat(finished.code()).isEqualTo("job_not_cancelable");
        assertThat(store.runs().findJob(done.uuid()).orElseThrow().status().wireName())
                .isEqualTo("completed");
        assertThat(s.canceled).hasSize(3);

        assertThat(s.post("/v0/projects/other/jobs/" + completedUuid + "/cancel", null)
                        .code())
                .isEqualTo("job_not_found");
    }
}
