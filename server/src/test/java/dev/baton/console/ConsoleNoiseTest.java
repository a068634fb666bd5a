package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.NoiseReading;
import dev.baton.store.Store;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's runner noise page (decision 0062) over plain HTTP: the admin sees each runner's
 * latest figures, when they were measured and the {@code noisy} flag, and asks a connected runner
 * to measure (its channel gets {@code calibrate}, the request is audited); the API's refusal of a
 * runner without a channel is shown; no other role sees the page or may ask.
 */
class ConsoleNoiseTest {
    @TempDir
    Path dataDir;

    ConsoleServer baton;
    ConsoleBrowser browser;
    TestRunner connected;
    String away;

    @BeforeEach
    void start() throws Exception {
        baton = new ConsoleServer(dataDir);
        browser = new ConsoleBrowser(baton::url);
        String[] quiet = baton.createRunner("quiet-1");
        connected = baton.connect(quiet[0], quiet[1]);
        connected.welcome();
        away = baton.createRunner("loud-1")[0];
        // Four calibrations of loud-1, the latest far above the three before it: flagged.
        Store store = baton.server.store();
        long id = store.runners()
                .findRunner(dev.baton.protocol.id.ResourceId.of(away))
                .orElseThrow()
                .id();
        Instant t = Instant.parse("2026-11-29T10:00:00Z");
        for (double cpu : new double[] {0.010, 0.011, 0.012})
            store.noise().recordNoise(id, new NoiseReading(t = t.plusSeconds(3600), cpu, 0.02, 0.1, 200, null));
        store.noise()
                .recordNoise(id, new NoiseReading(Instant.parse("2026-11-29T15:02:11Z"), 0.0555, 0.02, 0.1, 200, null));
    }

    @AfterEach
    void stop() {
        connected.close();
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

    List<String> audited() throws Exception {
        return baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action");
    }

    @Test
    void theAdminSeesEachRunnersFiguresAndAsksAConnectedOneToMeasure() throws Exception {
        String session = signIn(baton.admin);
        assertThat(get("/console/runners", session).body()).contains("href=\"/console/noise\"");
        String page = get("/console/noise", session).body();
        assertThat(page)
                .contains("data-noise-runner=\"quiet-1\"")
                .contains("never measured")
                .contains("data-noise-runner=\"loud-1\"")
                .contains("datetime=\"2026-11-29T15:02:11Z\"")
                .contains("5.55%")
                .contains("2.00%")
                .contains("10.00%")
                .contains(">noisy<")
                .contains("action=\"/console/runners/quiet-1/noise\"");
        String csrf = ConsoleHttpTest.csrfOf(page);

        var asked = post("/console/runners/quiet-1/noise", session, "_csrf", csrf);
        assertThat(asked.statusCode()).as(asked.body()).isEqualTo(202);
        assertThat(asked.body()).contains("measures its noise once its wait for a job ends");
        assertThat(connected.expect(ServerMessage.Calibrate.class)).isNotNull();
        assertThat(audited()).contains("runner.noise_requested");

        var refused = post("/console/runners/loud-1/noise", session, "_csrf", csrf);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("has no open channel");
        // Without the form's CSRF token nothing is asked.
        assertThat(post("/console/runners/quiet-1/noise", session).statusCode()).isEqualTo(403);
        connected.expectSilence(Duration.ofMillis(300));
    }

    @Test
    void everyRoleButTheAdminSeesNoPageAndItsPostsAreRefused() throws Exception {
        for (String role : ConsoleFleetFormsTest.PROJECT_ROLES) {
            String session = signIn(baton.tokenWithRole("u-" + role, "bench", role));
            String projects = get("/console/projects", session).body();
            String csrf = ConsoleHttpTest.csrfOf(projects);
            var page = get("/console/noise", session);
            assertThat(page.statusCode()).as(role).isEqualTo(403);
            assertThat(page.body()).as(role).doesNotContain("loud-1");
            assertThat(post("/console/runners/quiet-1/noise", session, "_csrf", csrf)
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
        }
        connected.expectSilence(Duration.ofMillis(300));
        assertThat(audited()).doesNotContain("runner.noise_requested");
    }
}
