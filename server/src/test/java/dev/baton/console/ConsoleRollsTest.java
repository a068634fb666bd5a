package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.testing.TestRunner;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fleet upgrades on the console (issue 41) over plain HTTP: the admin starts a roll from the
 * runners page's form and follows it on the roll's page to the runner that never came back; every
 * other role sees no form, and its forged post is refused with no roll started.
 */
class ConsoleRollsTest {
    static final String CHECKSUM = "c".repeat(64);

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

    @Test
    void theAdminStartsARollAndFollowsItToTheRunnerThatDidNotComeBack() throws Exception {
        String[] rack = baton.createRunner("rack 1");
        try (TestRunner runner = baton.connect(rack[0], rack[1])) {
            runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "1.0.0", 1));
            await().until(() -> "1.0.0"
                    .equals(baton.get("/v0/runners/" + rack[0]).path("version").asText(null)));
            String session = signIn(baton.admin);
            String runners = get("/console/runners", session).body();
            assertThat(runners)
                    .contains("id=\"roll-form\"")
                    .contains("value=\"spec:small\"")
                    .contains("value=\"runner:" + rack[0] + "\"");
            String csrf = ConsoleHttpTest.csrfOf(runners);
            assertThat(get("/console/rolls/new", session).body()).contains("id=\"roll-form\"");
            assertThat(get("/console/rolls", session).body()).contains("No rolls yet");

            // The API's refusal is shown on the form, with what was typed, and no roll starts.
            var bad = post(
                    "/console/rolls",
                    session,
                    "_csrf",
                    csrf,
                    "target",
                    "spec:small",
                    "url",
                    "https://downloads.example/baton.jar",
                    "checksum",
                    "not-a-checksum");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body())
                    .contains("id=\"roll-error\"")
                    .contains("checksum must be a SHA-256")
                    .contains("value=\"https://downloads.example/baton.jar\"");
            assertThat(baton.get("/v0/rolls")).isEmpty();

            var started = post(
                    "/console/rolls",
                    session,
                    "_csrf",
                    csrf,
                    "target",
                    "runner:" + rack[0],
                    "url",
                    "https://downloads.example/baton.jar",
                    "checksum",
                    CHECKSUM,
                    "version",
                    "2.0.0",
                    "max_unavailable",
                    "1",
                    "timeout",
                    "300");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(303);
            String page = started.headers().firstValue("Location").orElseThrow();
            assertThat(page).startsWith("/console/rolls/");
            String uuid = page.substring("/console/rolls/".length());

            runner.expect(ServerMessage.Drain.class);
            assertThat(runner.expect(ServerMessage.Update.class).version()).isEqualTo("2.0.0");
            await().until(() -> get(page, session).body().contains("data-step=\"" + rack[0] + "\""));
            await().until(() -> "updating"
                    .equals(baton.get("/v0/rolls/" + uuid)
                            .at("/runners/0/state")
                            .asText()));
            String running = get(page, session).body();
            assertThat(running)
                    .contains("data-state=\"running\"")
                    .contains("hx-trigger=\"every 3s\"")
                    .contains("state-updating")
                    .contains("https://downloads.example/baton.jar");
            assertThat(get("/console/rolls", session).body()).contains("data-roll=\"" + uuid + "\"");

            // It never rejoins: once its timeout passes on the server's clock, the roll fails naming it.
            runner.crash();
            baton.clock.advance(Duration.ofSeconds(300));
            await().until(() ->
                    "failed".equals(baton.get("/v0/rolls/" + uuid).path("state").asText()));
            String failed = get(page, session).body();
            assertThat(failed)
                    .contains("data-state=\"failed\"")
                    .contains("id=\"roll-reason\"")
                    .contains("runner " + rack[0])
                    .doesNotContain("hx-trigger=\"every 3s\"");
            assertThat(baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action"))
                    .contains("runner_roll.started");
        }
    }

    @Test
    void everyOtherRoleSeesNoFormAndItsForgedPostStartsNothing() throws Exception {
        baton.createRunner("rack 1");
        for (String role : ConsoleFleetFormsTest.PROJECT_ROLES) {
            String session = signIn(baton.tokenWithRole("u-" + role, "bench", role));
            String csrf =
                    ConsoleHttpTest.csrfOf(get("/console/projects", session).body());
            for (String path : List.of("/console/runners", "/console/rolls/new", "/console/rolls")) {
                var page = get(path, session);
                assertThat(page.statusCode()).as(role + " " + path).isEqualTo(403);
                assertThat(page.body()).as(role + " " + path).doesNotContain("roll-form");
            }
            var forged = post(
                    "/console/rolls",
                    session,
                    "_csrf",
                    csrf,
                    "target",
                    "all",
                    "url",
                    "https://downloads.example/baton.jar",
                    "checksum",
                    CHECKSUM);
            assertThat(forged.statusCode()).as(role).isEqualTo(403);
            assertThat(forged.body()).doesNotContain("roll-form");
        }
        assertThat(baton.get("/v0/rolls")).isEmpty();
        assertThat(baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action"))
                .doesNotContain("runner_roll.started");
    }
}
