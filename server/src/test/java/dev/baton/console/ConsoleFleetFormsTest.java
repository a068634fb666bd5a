package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.server.testing.TestRunner;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's fleet forms (issue 41) over plain HTTP: a runner created with its key shown once,
 * a spec created and edited, a runner's specs chosen; each through the API (so audited), each
 * refused to every role but the admin, form and post alike. {@link ConsoleFleetFormsBrowserTest}
 * drives the same forms in Chromium.
 */
class ConsoleFleetFormsTest {
    /** Every role a token can have on a project: none of them may change the fleet. */
    static final List<String> PROJECT_ROLES = List.of("viewer", "submitter", "maintainer", "owner");

    @TempDir
    Path dataDir;

    ConsoleServer baton;
    ConsoleBrowser browser;

    @BeforeEach
    void start() throws Exception {
        baton = new ConsoleServer(dataDir);
        browser = new ConsoleBrowser(baton::url);
    }

    @AfterEach
    void stop() {
        browser.close();
        baton.close();
    }

    HttpResponse<String> get(String path, String cookie) throws Exception {
        return browser.get(path, cookie);
    }

    HttpResponse<String> post(String path, String cookie, String... fields) throws Exception {
        return browser.post(path, cookie, fields);
    }

    String signIn(String token) throws Exception {
        return browser.signIn(token);
    }

    String specUuid(String slug) throws Exception {
        return baton.get("/v0/specs/" + slug).get("uuid").asText();
    }

    List<String> servedBy(String runner) throws Exception {
        return baton.get("/v0/runners/" + runner + "/specs").findValuesAsText("slug");
    }

    List<String> audited() throws Exception {
        return baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action");
    }

    @Test
    void aRunnerIsCreatedWithItsSpecsAndItsKeyIsShownOnceThenWorks() throws Exception {
        String session = signIn(baton.admin);
        String form = get("/console/runners/new", session).body();
        assertThat(form).contains("id=\"runner-form\"").contains("data-spec=\"small\"");
        assertThat(get("/console/runners", session).body()).contains("href=\"/console/runners/new\"");

        var created = post(
                "/console/runners",
                session,
                "_csrf",
                ConsoleHttpTest.csrfOf(form),
                "name",
                "rack 1",
                "spec",
                specUuid("small"));
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        Matcher key = Pattern.compile("value=\"(baton_runner_[0-9a-f]{64})\"").matcher(created.body());
        assertThat(key.find()).isTrue();
        assertThat(created.body()).contains("only this once").contains("serving small");
        assertThat(servedBy("rack-1")).containsExactly("small");
        assertThat(get("/console/runners", session).body()).contains("rack 1").doesNotContain(key.group(1));
        assertThat(audited()).contains("runner.created", "runner.spec_added");

        try (TestRunner runner = baton.connect("rack-1", key.group(1))) {
            assertThat(runner.welcome()).isNotNull();
        }

        // A name in use: the API's refusal is shown on the form, with what was typed, and nothing is created.
        var again = post("/console/runners", session, "_csrf", ConsoleHttpTest.csrfOf(form), "name", "rack 1");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body())
                .contains("id=\"form-error\"")
                .contains("is in use by runner")
                .contains("value=\"rack 1\"");
        assertThat(baton.get("/v0/runners")).hasSize(1);
    }

    @Test
    void aSpecIsCreatedAndEditedAndItsShapeStaysFixed() throws Exception {
        String session = signIn(baton.admin);
        String csrf = ConsoleHttpTest.csrfOf(get("/console/specs/new", session).body());
        var bad = post(
                "/console/specs",
                session,
                "_csrf",
                csrf,
                "name",
                "large",
                "architecture",
                "x86_64",
                "cpu",
                "four",
                "memory",
                "0.5",
                "disk",
                "16");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body())
                .contains("CPUs must be a whole number, not 'four'")
                .contains("value=\"0.5\"");
        assertThat(post(
                                "/console/specs",
                                session,
                                "_csrf",
                                csrf,
                                "name",
                                "large",
                                "architecture",
                                "x86_64",
                                "cpu",
                                "0",
                                "memory",
                                "0.5",
                                "disk",
                                "16")
                        .body())
                .contains("id=\"form-error\"")
                .contains("cpu");

        var created = post(
                "/console/specs",
                session,
                "_csrf",
                csrf,
                "name",
                "large",
                "architecture",
                "aarch64",
                "cpu",
                "4",
                "memory",
                "0.5",
                "disk",
                "16",
                "network",
                "on",
                "queue_timeout",
                "600");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(303);
        JsonNode spec = baton.get("/v0/specs/large");
        assertThat(spec.get("architecture").asText()).isEqualTo("aarch64");
        assertThat(spec.get("memory").asLong()).isEqualTo(1L << 29);
        assertThat(spec.get("disk").asLong()).isEqualTo(16L << 30);
        assertThat(spec.get("network").asBoolean()).isTrue();
        assertThat(spec.get("queue_timeout").asInt()).isEqualTo(600);
        assertThat(get("/console/specs", session).body()).contains("href=\"/console/specs/large/edit\"");

        String edit = get("/console/specs/large/edit", session).body();
        assertThat(edit)
                .contains("value=\"large\"")
                .contains("id=\"spec-shape\"")
                .doesNotContain("id=\"spec-cpu\"");
        var saved = post(
                "/console/specs/large",
                session,
                "_csrf",
                csrf,
                "name",
                "Large box",
                "slug",
                "large",
                "queue_timeout",
                "",
                "require_clean_fingerprint",
                "on",
                "cpu",
                "64");
        assertThat(saved.statusCode()).as(saved.body()).isEqualTo(303);
        JsonNode edited = baton.get("/v0/specs/large");
        assertThat(edited.get("name").asText()).isEqualTo("Large box");
        assertThat(edited.path("queue_timeout").isNull()
                        || edited.path("queue_timeout").isMissingNode())
                .isTrue();
        assertThat(edited.get("require_clean_fingerprint").asBoolean()).isTrue();
        assertThat(edited.get("cpu").asInt()).as("the shape is not editable").isEqualTo(4);

        var taken = post("/console/specs/large", session, "_csrf", csrf, "name", "Large box", "slug", "small");
        assertThat(taken.statusCode()).isEqualTo(409);
        assertThat(taken.body()).contains("id=\"form-error\"");
        assertThat(audited()).contains("spec.created", "spec.updated");
    }

    @Test
    void aRunnerServesExactlyTheSpecsChecked() throws Exception {
        String session = signIn(baton.admin);
        String csrf = ConsoleHttpTest.csrfOf(get("/console/specs/new", session).body());
        post(
                "/console/specs",
                session,
                "_csrf",
                csrf,
                "name",
                "large",
                "architecture",
                "x86_64",
                "cpu",
                "8",
                "memory",
                "8",
                "disk",
                "16");
        baton.createRunner("rack 2"); // serves small
        String page = get("/console/runners/rack-2/specs", session).body();
        assertThat(page)
                .contains("id=\"runner-specs-form\"")
                .containsPattern("value=\"" + specUuid("small") + "\" data-spec=\"small\" checked");

        assertThat(post("/console/runners/rack-2/specs", session, "_csrf", csrf, "spec", specUuid("large"))
                        .statusCode())
                .isEqualTo(303);
        assertThat(servedBy("rack-2")).containsExactly("large");
        assertThat(post(
                                "/console/runners/rack-2/specs",
                                session,
                                "_csrf",
                                csrf,
                                "spec",
                                specUuid("large"),
                                "spec",
                                specUuid("small"))
                        .statusCode())
                .isEqualTo(303);
        assertThat(servedBy("rack-2")).containsExactlyInAnyOrder("small", "large");
        assertThat(post("/console/runners/rack-2/specs", session, "_csrf", csrf).statusCode())
                .isEqualTo(303);
        assertThat(servedBy("rack-2")).isEmpty();
        assertThat(audited()).contains("runner.spec_added", "runner.spec_removed");
        // Without the session's CSRF token nothing changes.
        assertThat(post("/console/runners/rack-2/specs", session, "_csrf", "forged", "spec", specUuid("small"))
                        .statusCode())
                .isEqualTo(403);
        assertThat(servedBy("rack-2")).isEmpty();
    }

    /** The role table: only the admin changes the fleet; every project role sees no form and its forged posts change nothing. */
    @Test
    void everyRoleButTheAdminSeesNoFormAndItsPostsAreRefused() throws Exception {
        baton.createRunner("rack 3");
        List<String> fleetActions =
                List.of("runner.created", "runner.spec_added", "runner.spec_removed", "spec.created", "spec.updated");
        long auditedBefore = audited().stream().filter(fleetActions::contains).count();
        for (String role : PROJECT_ROLES) {
            String session = signIn(baton.tokenWithRole("u-" + role, "bench", role));
            String csrf =
                    ConsoleHttpTest.csrfOf(get("/console/projects", session).body());
            for (String path : List.of(
                    "/console/runners/new",
                    "/console/specs/new",
                    "/console/specs/small/edit",
                    "/console/runners/rack-3/specs")) {
                var page = get(path, session);
                assertThat(page.statusCode()).as(role + " " + path).isEqualTo(403);
                assertThat(page.body()).as(role + " " + path).doesNotContain("fleet-form");
            }
            assertThat(post("/console/runners", session, "_csrf", csrf, "name", "sneaky " + role)
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
            assertThat(post(
                                    "/console/specs",
                                    session,
                                    "_csrf",
                                    csrf,
                                    "name",
                                    "sneaky",
                                    "architecture",
                                    "x86_64",
                                    "cpu",
                                    "1",
                                    "memory",
                                    "1",
                                    "disk",
                                    "1")
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
            assertThat(post("/console/specs/small", session, "_csrf", csrf, "name", "renamed")
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
            // Also a post that would change nothing is refused: the role table decides, not the diff.
            assertThat(post("/console/runners/rack-3/specs", session, "_csrf", csrf, "spec", specUuid("small"))
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
            assertThat(post("/console/runners/rack-3/specs", session, "_csrf", csrf)
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
        }
        assertThat(baton.get("/v0/runners").findValuesAsText("slug")).containsExactly("rack-3");
        assertThat(baton.get("/v0/specs").findValuesAsText("slug")).containsExactly("small");
        assertThat(baton.get("/v0/specs/small").get("name").asText()).isEqualTo("small");
        assertThat(servedBy("rack-3")).containsExactly("small");
        assertThat(audited().stream().filter(fleetActions::contains).count())
                .as("refusals change nothing, so nothing is audited")
                .isEqualTo(auditedBefore);
    }
}
