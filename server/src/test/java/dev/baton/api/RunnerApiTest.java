package dev.baton.api;

import static dev.baton.api.Fixtures.created;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.store.TestClaims;
import dev.baton.web.auth.RunnerAuthenticator;
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

class RunnerApiTest {
    @TempDir
    Path dir;

    TestServer s;
    RunnerAuthenticator auth;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
        auth = new RunnerAuthenticator(s.server.store());
    }

    @AfterEach
    void stop() {
        s.close();
    }

    private boolean accepted(String runner, String key) {
        return auth.authenticate(runner, "Bearer " + key).isPresent();
    }

    @Test
    void createReturnsTheKeyOnceAndStoresOnlyItsHash() {
        JsonNode body = created(s.post("/v0/runners", Map.of("name", "Bench Box #1")));
        String key = body.path("key").asText();
        assertThat(key).matches("baton_runner_[0-9a-f]{64}");
        JsonNode runner = body.path("runner");
        assertThat(runner.path("slug").asText()).isEqualTo("bench-box-1");
        assertThat(runner.path("name").asText()).isEqualTo("Bench Box #1");
        assertThat(runner.path("created").asText()).isEqualTo(TestServer.START.toString());
        assertThat(runner.has("archived")).isFalse();

        JsonNode fetched = s.get("/v0/runners/bench-box-1").json();
        assertThat(fetched.toString())
                .doesNotContain(key)
                .doesNotContain(RunnerKey.parse(key).hash());
        assertThat(fetched.has("key")).isFalse();
        assertThat(accepted("bench-box-1", key)).isTrue();
        assertThat(accepted(runner.path("uuid").asText(), key)).isTrue();
    }

    @Test
    void getByUuidOrSlugAnd404() {
        JsonNode runner = Fixtures.runner(s, "r1").path("runner");
        assertThat(s.get("/v0/runners/" + runner.path("uuid").asText())
                        .json()
                        .path("slug")
                        .asText())
                .isEqualTo("r1");
        assertThat(s.get("/v0/runners/r1").json().path("uuid").asText())
                .isEqualTo(runner.path("uuid").asText());
        var missing = s.get("/v0/runners/nope");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.code()).isEqualTo("runner_not_found");
        assertThat(s.get("/v0/runners/00000000-0000-0000-0000-000000000000").code())
                .isEqualTo("runner_not_found");
    }

    @Test
    void aRunnerNameInUseIsRefusedNotRenamed() {
        String first = created(s.post("/v0/runners", Map.of("name", "gpu")))
                .path("runner")
                .path("slug")
                .asText();
        assertThat(first).isEqualTo("gpu");
        var again = s.post("/v0/runners", Map.of("name", "gpu"));
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.code()).isEqualTo("runner_name_taken");
        assertThat(again.json().path("field").asText()).isEqualTo("name");
        assertThat(again.json().path("message").asText()).contains("'gpu'");
        // A different name whose derived slug is taken is refused too, naming the slug.
        var sameSlug = s.post("/v0/runners", Map.of("name", "GPU"));
        assertThat(sameSlug.status()).isEqualTo(409);
        assertThat(sameSlug.code()).isEqualTo("runner_name_taken");
        assertThat(sameSlug.json().path("message").asText()).contains("slug 'gpu'");
        // An archived runner keeps its name.
        s.patch("/v0/runners/gpu", Map.of("archived", true));
        assertThat(s.post("/v0/runners", Map.of("name", "gpu"))
                        .json()
                        .path("message")
                        .asText())
                .contains("(archived)");
        var taken = s.post("/v0/runners", Map.of("name", "other", "slug", "gpu"));
        assertThat(taken.status()).isEqualTo(409);
        assertThat(taken.code()).isEqualTo("slug_taken");
        assertThat(taken.json().path("field").asText()).isEqualTo("slug");
        assertThat(s.get("/v0/runners?archived=true").json()).hasSize(1);
    }

    @Test
    void createValidatesNameAndSlug() {
        var noName = s.post("/v0/runners", Map.of());
        assertThat(noName.status()).isEqualTo(400);
        assertThat(noName.code()).isEqualTo("missing_field");
        assertThat(noName.json().path("field").asText()).isEqualTo("name");
        var blank = s.post("/v0/runners", Map.of("name", "  "));
        assertThat(blank.code()).isEqualTo("invalid_field");
        var tooLong = s.post("/v0/runners", Map.of("name", "n".repeat(257)));
        assertThat(tooLong.code()).isEqualTo("invalid_field");
        var badSlug = s.post("/v0/runners", Map.of("name", "x", "slug", "Not A Slug"));
        assertThat(badSlug.code()).isEqualTo("invalid_field");
        assertThat(badSlug.json().path("field").asText()).isEqualTo("slug");
        var uuidSlug = s.post("/v0/runners", Map.of("name", "x", "slug", "00000000-0000-0000-0000-000000000000"));
        assertThat(uuidSlug.code()).isEqualTo("invalid_field");
        assertThat(s.get("/v0/runners").json()).isEmpty();
    }

    @Test
    void listFiltersByNameSearchAndArchived() {
        Fixtures.runner(s, "alpha-one");
        Fixtures.runner(s, "alpha-two");
        Fixtures.runner(s, "beta");
        assertThat(s.patch("/v0/runners/alpha-two", Map.of("archived", true)).status())
                .isEqualTo(200);

        assertThat(slugs(s.get("/v0/runners").json())).containsExactlyInAnyOrder("alpha-one", "beta");
        assertThat(slugs(s.get("/v0/runners?archived=true").json()))
                .containsExactlyInAnyOrder("alpha-one", "alpha-two", "beta");
        assertThat(slugs(s.get("/v0/runners?search=alpha&archived=true").json()))
                .containsExactlyInAnyOrder("alpha-one", "alpha-two");
        assertThat(slugs(s.get("/v0/runners?name=beta").json())).containsExactly("beta");
        var bad = s.get("/v0/runners?archived=yes");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.code()).isEqualTo("invalid_parameter");
    }

    @Test
    void patchRenamesReslugsArchivesAndRestores() {
        Fixtures.runner(s, "r1");
        Fixtures.runner(s, "r2");
        s.clock.advance(Duration.ofMinutes(1));
        JsonNode renamed = s.patch("/v0/runners/r1", Map.of("name", "Runner One", "slug", "runner-one"))
                .json();
        assertThat(renamed.path("name").asText()).isEqualTo("Runner One");
        assertThat(renamed.path("slug").asText()).isEqualTo("runner-one");
        assertThat(renamed.path("modified").asText())
                .isEqualTo(TestServer.START.plus(Duration.ofMinutes(1)).toString());
        assertThat(s.get("/v0/runners/r1").status()).isEqualTo(404);

        var taken = s.patch("/v0/runners/runner-one", Map.of("slug", "r2"));
        assertThat(taken.status()).isEqualTo(409);
        assertThat(taken.code()).isEqualTo("slug_taken");

        JsonNode archived =
                s.patch("/v0/runners/runner-one", Map.of("archived", true)).json();
        assertThat(archived.path("archived").asText()).isNotEmpty();
        JsonNode restored =
                s.patch("/v0/runners/runner-one", Map.of("archived", false)).json();
        assertThat(restored.has("archived")).isFalse();

        var badName = s.patch("/v0/runners/runner-one", Map.of("name", ""));
        assertThat(badName.code()).isEqualTo("invalid_field");
        assertThat(s.get("/v0/runners/runner-one").json().path("name").asText()).isEqualTo("Runner One");
        assertThat(s.patch("/v0/runners/none", Map.of("name", "x")).code()).isEqualTo("runner_not_found");
    }

    @Test
    void rotationInvalidatesTheOldKeyAtOnce() {
        String old = Fixtures.runner(s, "r1").path("key").asText();
        assertThat(accepted("r1", old)).isTrue();
        JsonNode rotated = s.post("/v0/runners/r1/token", null).json();
        String fresh = rotated.path("key").asText();
        assertThat(fresh).matches("baton_runner_[0-9a-f]{64}").isNotEqualTo(old);
        assertThat(rotated.path("runner").path("slug").asText()).isEqualTo("r1");
        assertThat(accepted("r1", old)).isFalse();
        assertThat(accepted("r1", fresh)).isTrue();
    }

    @Test
    void archivedRunnersCannotRotateAndTheirKeyIsRejected() {
        String key = Fixtures.runner(s, "r1").path("key").asText();
        s.patch("/v0/runners/r1", Map.of("archived", true));
        assertThat(accepted("r1", key)).isFalse();
        var rotate = s.post("/v0/runners/r1/token", null);
        assertThat(rotate.status()).isEqualTo(409);
        assertThat(rotate.code()).isEqualTo("runner_archived");
        s.patch("/v0/runners/r1", Map.of("archived", false));
        assertThat(accepted("r1", key)).isTrue();
    }

    @Test
    void aKeyOnlyAuthenticatesItsOwnRunner() {
        String k1 = Fixtures.runner(s, "r1").path("key").asText();
        Fixtures.runner(s, "r2");
        assertThat(accepted("r2", k1)).isFalse();
        assertThat(auth.authenticate("r1", null)).isEmpty();
        assertThat(auth.authenticate("r1", "Bearer not-a-key")).isEmpty();
        assertThat(auth.authenticate("r1", k1)).as("without the Bearer scheme").isEmpty();
    }

    @Test
    void runnerSpecsCanBeListedAddedAndRemoved() {
        Fixtures.runner(s, "r1");
        JsonNode spec = Fixtures.spec(s, "small");
        Fixtures.spec(s, "big");
        assertThat(s.get("/v0/runners/r1/specs").json()).isEmpty();

        var added = s.post("/v0/runners/r1/specs", Map.of("spec", "small"));
        assertThat(added.status()).isEqualTo(201);
        assertThat(slugs(added.json())).containsExactly("small");
        // by uuid, and idempotent
        s.post("/v0/runners/r1/specs", Map.of("spec", spec.path("uuid").asText()));
        s.post("/v0/runners/r1/specs", Map.of("spec", "big"));
        assertThat(slugs(s.get("/v0/runners/r1/specs").json())).containsExactlyInAnyOrder("small", "big");

        assertThat(s.delete("/v0/runners/r1/specs/small").status()).isEqualTo(204);
        assertThat(slugs(s.get("/v0/runners/r1/specs").json())).containsExactly("big");
        var again = s.delete("/v0/runners/r1/specs/small");
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.code()).isEqualTo("runner_spec_not_found");

        var unknownSpec = s.post("/v0/runners/r1/specs", Map.of("spec", "nope"));
        assertThat(unknownSpec.status()).isEqualTo(404);
        assertThat(unknownSpec.code()).isEqualTo("spec_not_found");
        assertThat(s.post("/v0/runners/r1/specs", Map.of()).code()).isEqualTo("missing_field");
        assertThat(s.get("/v0/runners/none/specs").code()).isEqualTo("runner_not_found");

        s.patch("/v0/specs/small", Map.of("archived", true));
        var archived = s.post("/v0/runners/r1/specs", Map.of("spec", "small"));
        assertThat(archived.status()).isEqualTo(409);
        assertThat(archived.code()).isEqualTo("spec_archived");
    }

    static List<String> slugs(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.path("slug").asText()));
        return out;
    }
    /** Issue 19: a quarantined runner shows when and why, and the admin's release lifts it (audited). */
    @Test
    void aQuarantinedRunnerSaysWhyAndReleaseLiftsIt() {
        Fixtures.organization(s, "acme", "team");
        Fixtures.project(s, "web", "acme");
        Fixtures.spec(s, "small");
        JsonNode runner = Fixtures.runner(s, "flaky").path("runner");
        created(s.post("/v0/runners/flaky/specs", Map.of("spec", "small")));
        JsonNode job = created(s.post("/v0/run", Fixtures.runBody("web", "small", Map.of())))
                .path("job");

        // One infrastructure failure recorded through the store, as the channel records a decline.
        var store = s.server.store();
        long id = store.runners()
                .findRunner(dev.baton.protocol.id.ResourceId.of("flaky"))
                .orElseThrow()
                .id();
        var lease = dev.baton.protocol.id.LeaseId.random();
        java.time.Instant now = s.clock.instant();
        assertThat(TestClaims.claim(store, id, lease, now)).isPresent();
        store.transitions()
                .requeue(
                        dev.baton.protocol.id.JobUuid.parse(job.path("uuid").asText()),
                        lease,
                        dev.baton.store.AttemptOutcome.DECLINED,
                        new dev.baton.store.Decline("executor_error", "runc: exec format error"),
                        5,
                        Duration.ofSeconds(30),
                        now);
        assertThat(store.runners().quarantineIfFlaky(id, 1, Duration.ofHours(1), now))
                .isPresent();
        assertThat(store.runners().quarantineIfFlaky(id, 1, Duration.ofHours(1), now))
                .as("already quarantined")
                .isEmpty();

        JsonNode shown = s.get("/v0/runners/flaky").json();
        assertThat(shown.path("quarantined").asText()).isEqualTo(now.toString());
        assertThat(shown.path("quarantine_reason").asText())
                .isEqualTo("1 infrastructure failure within 1h (threshold 1; latest: declined executor_error)");
        assertThat(s.get("/v0/runners").json().get(0).has("quarantined")).isTrue();

        var released = s.post("/v0/runners/flaky/release", null);
        assertThat(released.status()).isEqualTo(200);
        assertThat(released.json().path("uuid").asText())
                .isEqualTo(runner.path("uuid").asText());
        assertThat(released.json().has("quarantined")).isFalse();
        assertThat(released.json().has("quarantine_reason")).isFalse();
        assertThat(s.get("/v0/runners/flaky").json().has("quarantined")).isFalse();
        // The failure before the release does not count again.
        assertThat(store.runners().quarantineIfFlaky(id, 1, Duration.ofHours(1), s.clock.instant()))
                .isEmpty();
        assertThat(s.get("/v0/audit?action=runner.released").json().path("events"))
                .hasSize(1);

        var missing = s.post("/v0/runners/nope/release", null);
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.code()).isEqualTo("runner_not_found");

        // A canary is for a quarantined runner only; refused bodies change nothing.
        int jobsBefore = s.get("/v0/projects/web/jobs").json().path("jobs").size();
        var notQuarantined = s.post("/v0/runners/flaky/canary", Fixtures.runBody("web", "small", Map.of()));
        assertThat(notQuarantined.status()).isEqualTo(409);
        assertThat(notQuarantined.code()).isEqualTo("runner_not_quarantined");
        // Quarantined again by a failure after the release.
        created(s.post("/v0/run", Fixtures.runBody("web", "small", Map.of())));
        java.time.Instant later = s.clock.instant().plus(Duration.ofMinutes(5));
        var lease2 = dev.baton.protocol.id.LeaseId.random();
        // (the first job's decline back-off is over: either pending job may be the one it takes)
        var failedAgain = TestClaims.claim(store, id, lease2, later).orElseThrow();
        store.transitions()
                .requeue(
                        failedAgain.uuid(),
                        lease2,
                        dev.baton.store.AttemptOutcome.DECLINED,
                        new dev.baton.store.Decline("executor_error", "runc: exec format error"),
                        5,
                        Duration.ofSeconds(30),
                        later);
        assertThat(store.runners().quarantineIfFlaky(id, 1, Duration.ofHours(1), later))
                .isPresent();
        jobsBefore = s.get("/v0/projects/web/jobs").json().path("jobs").size();
        var nobody = s.post("/v0/runners/nope/canary", Fixtures.runBody("web", "small", Map.of()));
        assertThat(nobody.code()).isEqualTo("runner_not_found");
        Fixtures.spec(s, "other");
        var otherSpec = s.post("/v0/runners/flaky/canary", Fixtures.runBody("web", "other", Map.of()));
        assertThat(otherSpec.status()).isEqualTo(409);
        assertThat(otherSpec.code()).isEqualTo("spec_not_served");
        assertThat(s.get("/v0/projects/web/jobs").json().path("jobs").size()).isEqualTo(jobsBefore);

        JsonNode canary = created(s.post("/v0/runners/flaky/canary", Fixtures.runBody("web", "small", Map.of())))
                .path("job");
        assertThat(canary.path("status").asText()).isEqualTo("pending");
        assertThat(canary.path("canary_for").asText())
                .isEqualTo(runner.path("uuid").asText());
        assertThat(job.has("canary_for")).as("an ordinary job is no canary").isFalse();
        assertThat(s.get("/v0/audit?action=runner.canary_submitted").json().path("events"))
                .hasSize(1);
        // Only the quarantined runner can claim it, although it is quarantined.
        long other = store.runners()
                .findRunner(dev.baton.protocol.id.ResourceId.of(Fixtures.runner(s, "healthy")
                        .path("runner")
                        .path("slug")
                        .asText()))
                .orElseThrow()
                .id();
        created(s.post("/v0/runners/healthy/specs", Map.of("spec", "small")));
        for (int i = 0; i < 2; i++) {
            assertThat(TestClaims.claim(store, other, dev.baton.protocol.id.LeaseId.random(), later)
                            .map(j -> j.uuid().toString()))
                    .as("the healthy runner takes the ordinary jobs, never the canary")
                    .isPresent()
                    .get()
                    .isNotEqualTo(canary.path("uuid").asText());
        }
        assertThat(TestClaims.claim(store, other, dev.baton.protocol.id.LeaseId.random(), later))
                .isEmpty();
        assertThat(TestClaims.claim(store, id, dev.baton.protocol.id.LeaseId.random(), later)
                        .map(j -> j.uuid().toString()))
                .hasValue(canary.path("uuid").asText());
    }
    /** Issue 19: the admin's labels replace each other, are shown, and malformed ones change nothing. */
    @Test
    void labelsAreSetShownAndValidated() {
        Fixtures.runner(s, "lab");
        JsonNode labelled = s.patch("/v0/runners/lab", Map.of("labels", Map.of("disk", "nvme", "kernel", "6.8")))
                .json();
        assertThat(labelled.path("labels").path("disk").asText()).isEqualTo("nvme");
        assertThat(labelled.path("labels_set").size()).isEqualTo(2);
        assertThat(labelled.path("labels_reported").size()).isZero();
        for (Object bad :
                List.of(Map.of("bad key", "x"), Map.of("disk", ""), Map.of("-x", "1"), Map.of("disk", "a b"))) {
            var refused = s.patch("/v0/runners/lab", Map.of("labels", bad, "name", "renamed"));
            assertThat(refused.status()).as(bad.toString()).isEqualTo(400);
            assertThat(refused.code()).isEqualTo("invalid_field");
            assertThat(refused.json().path("field").asText()).isEqualTo("labels");
        }
        JsonNode unchanged = s.get("/v0/runners/lab").json();
        assertThat(unchanged.path("name").asText()).isEqualTo("lab");
        assertThat(unchanged.path("labels").size()).isEqualTo(2);
        assertThat(s.patch("/v0/runners/lab", Map.of("labels", Map.of("disk", "ssd")))
                        .json()
                        .path("labels")
                        .toString())
                .isEqualTo("{\"disk\":\"ssd\"}");
        assertThat(s.patch("/v0/runners/lab", Map.of("name", "lab"))
                        .json()
                        .path("labels")
                        .size())
                .as("absent labels keep them")
                .isEqualTo(1);
    }
}
