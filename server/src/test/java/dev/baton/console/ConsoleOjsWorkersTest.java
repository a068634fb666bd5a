package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's OJS workers page (issue 47) over plain HTTP: the admin sees every worker with its
 * state and quiets, terminates and resumes it through {@code /ojs/v1} (so audited, and heard in the
 * worker's next heartbeat); every other role sees no page and its forged posts change nothing.
 */
class ConsoleOjsWorkersTest {
    @TempDir
    Path dataDir;

    ConsoleServer baton;
    ConsoleBrowser browser;

    @BeforeEach
    void start() throws Exception {
        baton = new ConsoleServer(dataDir);
        browser = new ConsoleBrowser(baton::url);
        baton.post(
                "/ojs/v1/workers/register",
                Map.of("worker_id", "worker-abc", "hostname", "web-01", "pid", 12345, "queues", List.of("emails")),
                200);
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

    /** The state the worker's next heartbeat is answered with. */
    String heartbeat() throws Exception {
        return baton.post(
                        "/ojs/v1/workers/heartbeat",
                        Map.of("worker_id", "worker-abc", "active_job_ids", List.of()),
                        200)
                .path("state")
                .asText();
    }

    JsonNode worker() throws Exception {
        return baton.get("/ojs/v1/workers/worker-abc").path("worker");
    }

    List<String> audited() throws Exception {
        return baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action");
    }

    @Test
    void theAdminSeesTheWorkerAndQuietsTerminatesAndResumesIt() throws Exception {
        String session = signIn(baton.admin);
        String page = get("/console/ojs-workers", session).body();
        assertThat(page)
                .contains("href=\"/console/ojs-workers\"")
                .contains("data-ojs-worker=\"worker-abc\"")
                .contains("emails")
                .contains("web-01")
                .contains("pid 12345")
                .contains(">running<")
                .contains("action=\"/console/ojs-workers/worker-abc/quiet\"")
                .contains("action=\"/console/ojs-workers/worker-abc/terminate\"")
                .doesNotContain("action=\"/console/ojs-workers/worker-abc/resume\"");
        String csrf = ConsoleHttpTest.csrfOf(page);

        var quiet = post("/console/ojs-workers/worker-abc/quiet", session, "_csrf", csrf);
        assertThat(quiet.statusCode()).as(quiet.body()).isEqualTo(303);
        assertThat(worker().path("directed_state").asText()).isEqualTo("quiet");
        assertThat(heartbeat()).isEqualTo("quiet");
        assertThat(get("/console/ojs-workers", session).body())
                .contains("action=\"/console/ojs-workers/worker-abc/resume\"")
                .doesNotContain("action=\"/console/ojs-workers/worker-abc/quiet\"");

        assertThat(post("/console/ojs-workers/worker-abc/terminate", session, "_csrf", csrf)
                        .statusCode())
                .isEqualTo(303);
        assertThat(heartbeat()).isEqualTo("terminate");
        assertThat(post("/console/ojs-workers/worker-abc/resume", session, "_csrf", csrf)
                        .statusCode())
                .isEqualTo(303);
        assertThat(heartbeat()).isEqualTo("running");
        assertThat(audited()).contains("ojs.worker.quiet", "ojs.worker.terminate", "ojs.worker.resume");

        // The API's refusal is shown: an unknown worker, and a direction that does not exist.
        var unknown = post("/console/ojs-workers/nobody/quiet", session, "_csrf", csrf);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(post("/console/ojs-workers/worker-abc/explode", session, "_csrf", csrf)
                        .statusCode())
                .isEqualTo(404);
        // Without the form's CSRF token nothing is directed.
        assertThat(post("/console/ojs-workers/worker-abc/quiet", session).statusCode())
                .isEqualTo(403);
        assertThat(worker().path("directed_state").isNull()).isTrue();
    }

    /** A project role is not the admin: no page, no link, and a forged post directs nothing and is not audited. */
    @Test
    void everyRoleButTheAdminSeesNoPageAndItsPostsAreRefused() throws Exception {
        for (String role : ConsoleFleetFormsTest.PROJECT_ROLES) {
            String session = signIn(baton.tokenWithRole("u-" + role, "bench", role));
            String projects = get("/console/projects", session).body();
            assertThat(projects).as(role).doesNotContain("/console/ojs-workers");
            String csrf = ConsoleHttpTest.csrfOf(projects);
            var page = get("/console/ojs-workers", session);
            assertThat(page.statusCode()).as(role).isEqualTo(403);
            assertThat(page.body()).as(role).doesNotContain("worker-abc");
            for (String direction : List.of("quiet", "terminate", "resume")) {
                assertThat(post("/console/ojs-workers/worker-abc/" + direction, session, "_csrf", csrf)
                                .statusCode())
                        .as(role + " " + direction)
                        .isEqualTo(403);
            }
        }
        assertThat(worker().path("directed_state").isNull()).isTrue();
        assertThat(heartbeat()).isEqualTo("running");
        assertThat(audited()).noneMatch(a -> a.startsWith("ojs."));
    }
}
