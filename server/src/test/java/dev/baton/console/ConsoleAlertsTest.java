package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * Alerts in the console (docs/console.md, docs/alerts.md) in headless Chromium against the
 * assembled server: a t_test threshold, five direct runs on main (10, 12, 11, 13, 14 ns) and a
 * runner job at 16 ns that raises an alert (limit 15.692, the worked example). The alerts page,
 * Dismiss behind a confirmation and Reopen, both refused without the CSRF token or to a viewer
 * (who sees no buttons); the compare page's alerts and the job list's git hash; the metrics
 * page's plot drawn by uPlot from its JSON endpoint; the run's alert group triaged from the alerts
 * page (issue 44).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("browser")
class ConsoleAlertsTest {
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");
    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    TestRunner runner;
    String job;
    String alert;
    String viewer;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleAlertsTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-alerts-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
        viewer = baton.viewerToken("vera", "bench");
        baton.post(
                "/v0/projects/bench/thresholds",
                Map.of("testbed", "lab", "measure", "latency", "model", "t_test", "upper_boundary", 0.95),
                201);
        double[] values = {10, 12, 11, 13, 14};
        for (int i = 0; i < values.length; i++) {
            Instant end = T0.plus(Duration.ofHours(i + 1));
            baton.post(
                    "/v0/run",
                    Map.of(
                            "project",
                            "bench",
                            "branch",
                            "main",
                            "testbed",
                            "lab",
                            "adapter",
                            "json",
                            "hash",
                            "0000000" + i,
                            "start_time",
                            end.minusSeconds(1).toString(),
                            "end_time",
                            end.toString(),
                            "results",
                            List.of(Map.of("sort", Map.of("latency", Map.of("value", values[i]))))),
                    201);
        }
        String[] r = baton.createRunner("alerts box");
        runner = baton.connect(r[0], r[1]);
        job = baton.run(baton.admin, Map.of("branch", "main", "testbed", "lab", "hash", "abc1234def5678"));
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ServerMessage m = runner.next();
        while (m instanceof ServerMessage.Ack) m = runner.next();
        ClaimedJob claimed = ((ServerMessage.Job) m).job();
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.send(new RunnerMessage.Completed(
                claimed.uuid(),
                claimed.lease(),
                List.of(new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":16}}}", "", Map.of()))));
        // Judging runs on its own thread after processing.
        chromium.wait.until(d -> alerts("active").size() == 1);
        alert = alerts("active").get(0).get("uuid").asText();
        signIn(baton.admin);
    }

    @AfterAll
    void stop() throws Exception {
        if (runner != null) runner.crash();
        if (chromium != null) chromium.close();
        if (baton != null) baton.close();
        for (Path p : new Path[] {profile, dataDir}) {
            if (p == null) continue;
            try (var paths = Files.walk(p)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    @Order(1)
    void theAlertsPageShowsTheAlertAndDismissAsksFirstThenReopenBringsItBack() {
        open("/console/projects/bench/alerts");
        String row = text(By.cssSelector("#active-alerts tr[data-alert='" + alert + "']"));
        assertThat(row)
                .contains(
                        "sort",
                        "latency",
                        "16",
                        "upper 15.69",
                        "t_test",
                        "5 earlier results, mean 12 ± 1.581",
                        "main · lab",
                        "abc1234",
                        "job " + job.substring(0, 8));
        assertThat(attribute(
                        By.cssSelector("#active-alerts tr[data-alert='" + alert + "'] a[href$='" + job + "']"), "href"))
                .endsWith("/jobs/" + job);

        click(By.cssSelector("tr[data-alert='" + alert + "'] button"));
        chromium.wait.until(d ->
                d.findElement(By.id("confirm-question")).getText().contains("Dismiss alert " + alert.substring(0, 8)));
        assertThat(status()).as("asking changes nothing").isEqualTo("active");
        click(By.id("confirm"));
        chromium.wait.until(d -> d.getCurrentUrl().endsWith("/console/projects/bench/alerts")
                && !d.findElements(By.id("dismissed-alerts")).isEmpty());
        assertThat(status()).isEqualTo("dismissed");
        assertThat(chromium.browser.findElements(By.id("no-active"))).hasSize(1);

        click(By.cssSelector("#dismissed-alerts tr[data-alert='" + alert + "'] button"));
        chromium.wait.until(d -> !d.findElements(By.id("active-alerts")).isEmpty());
        assertThat(status()).as("reopen acts at once").isEqualTo("active");
    }

    @Test
    @Order(2)
    void aPostWithoutTheCsrfTokenChangesNothing() {
        open("/console/projects/bench/alerts");
        String answer = post("/console/projects/bench/alerts/" + alert + "/dismiss", "confirm=yes");
        assertThat(answer).startsWith("403 ");
        assertThat(status()).isEqualTo("active");
    }

    @Test
    @Order(3)
    void theComparePageListsTheRunsAlertsAndTheJobListShowsItsHash() {
        open("/console/projects/bench/jobs/" + job + "/compare");
        String alerts = text(By.id("run-alerts"));
        assertThat(alerts).contains("sort", "latency", "16", "upper 15.69", "t_test");
        open("/console/projects/bench/jobs");
        assertThat(text(By.cssSelector("tr[data-job='" + job + "']"))).contains("main abc1234");
        assertThat(attribute(By.cssSelector("tr[data-job='" + job + "'] code[title]"), "title"))
                .isEqualTo("abc1234def5678");
    }

    @Test
    @Order(4)
    void theMetricsPagePlotsTheHistoryWithItsBoundaryFromTheDataEndpoint() throws Exception {
        open("/console/projects/bench/metrics");
        click(By.linkText("sort · latency"));
        chromium.wait
                .withMessage(() -> chromium.browserLog())
                .until(d -> "true".equals(d.findElement(By.id("plot")).getAttribute("data-drawn")));
        assertThat(chromium.browser.findElement(By.id("plot")).getAttribute("data-points"))
                .isEqualTo("6");
        Number inked = (Number)
                chromium.script(
                        "var c = document.querySelector('#plot canvas'); var d = c.getContext('2d')"
                                + ".getImageData(0, 0, c.width, c.height).data; var n = 0; for (var i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n;");
        assertThat(inked.intValue()).as("pixels drawn on the plot's canvas").isGreaterThan(500);
        assertThat(chromium.browser.findElements(By.cssSelector("#points tbody tr")))
                .hasSize(6);

        String json = (String)
                ((JavascriptExecutor) chromium.browser)
                        .executeAsyncScript(
                                "var done = arguments[arguments.length - 1];"
                                        + " fetch(document.getElementById('plot').dataset.src).then(function (r) { return r.text(); }).then(done);");
        JsonNode data = Wire.mapper().readTree(json);
        JsonNode points = data.get("points");
        assertThat(points).hasSize(6);
        assertThat(points)
                .extracting(p -> p.get("value").asDouble())
                .containsExactly(10.0, 12.0, 11.0, 13.0, 14.0, 16.0);
        JsonNode last = points.get(5);
        assertThat(last.get("upper").asDouble()).isCloseTo(15.692466, within(1e-5));
        assertThat(last.hasNonNull("lower")).as("no lower limit").isFalse();
        assertThat(last.get("alert").asText()).isEqualTo("upper");
        assertThat(last.get("job").asText()).isEqualTo("/console/projects/bench/jobs/" + job);
        assertThat(last.get("series").asText()).isEqualTo("main · lab");
        assertThat(points.get(0).hasNonNull("job"))
                .as("a direct run has no job")
                .isFalse();
    }

    /** issue 44: the run's alerts are one group with its commit range, triaged as a whole from the alerts page. */
    @Test
    @Order(5)
    void aGroupIsTriagedFromTheAlertsPage() throws Exception {
        open("/console/projects/bench/alerts");
        String group =
                baton.get("/v0/projects/bench/alerts/" + alert).get("group").asText();
        By row = By.cssSelector("#alert-groups tr[data-group='" + group + "']");
        assertThat(text(row)).contains("untriaged", "1: sort latency", "main · lab", "00000004..abc1234def");

        // A culprit without its commit is refused by the API, and the page says why.
        new Select(chromium.browser.findElement(By.cssSelector("#alert-groups tr[data-group='" + group + "'] select")))
                .selectByValue("culprit");
        click(By.cssSelector("#alert-groups tr[data-group='" + group + "'] button"));
        chromium.wait.until(d -> d.getPageSource().contains("Not triaged"));
        assertThat(chromium.browser.getPageSource()).contains("commit is required");
        assertThat(baton.get("/v0/projects/bench/alerts/" + alert)
                        .at("/triage/state")
                        .asText())
                .isEqualTo("untriaged");

        open("/console/projects/bench/alerts");
        new Select(chromium.browser.findElement(By.cssSelector("#alert-groups tr[data-group='" + group + "'] select")))
                .selectByValue("culprit");
        chromium.browser
                .findElement(By.cssSelector("#alert-groups tr[data-group='" + group + "'] input[name=commit]"))
                .sendKeys("abc1234");
        chromium.browser
                .findElement(By.cssSelector("#alert-groups tr[data-group='" + group + "'] input[name=note]"))
                .sendKeys("slower sort");
        click(By.cssSelector("#alert-groups tr[data-group='" + group + "'] button"));
        chromium.wait.until(d -> d.getCurrentUrl().endsWith("/console/projects/bench/alerts")
                && d.findElement(row).getText().contains("culprit"));
        assertThat(text(row)).contains("culprit", "abc1234", "slower sort", "by admin");
        JsonNode triage = baton.get("/v0/projects/bench/alerts/" + alert).get("triage");
        assertThat(triage.get("state").asText()).isEqualTo("culprit");
        assertThat(triage.get("commit").asText()).isEqualTo("abc1234");
        assertThat(triage.get("by").asText()).isEqualTo("admin");
    }

    @Test
    @Order(6)
    void aViewerSeesNoButtonsAndTheApiRefusesTheirDismiss() {
        chromium.browser.get(baton.url("/console/projects"));
        click(By.cssSelector(".sign-out button"));
        signIn(viewer);
        open("/console/projects/bench/alerts");
        assertThat(text(By.id("active-alerts"))).contains("sort");
        assertThat(chromium.browser.findElements(By.cssSelector("#active-alerts button")))
                .isEmpty();
        assertThat(chromium.browser.findElements(By.cssSelector("#alert-groups form")))
                .as("no triage form for a viewer")
                .isEmpty();
        String csrf = attribute(By.cssSelector(".sign-out input[name=_csrf]"), "value");
        String answer = post("/console/projects/bench/alerts/" + alert + "/dismiss", "_csrf=" + csrf + "&confirm=yes");
        assertThat(answer).startsWith("403 ");
        assertThat(status()).isEqualTo("active");
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private void signIn(String token) {
        chromium.browser.get(baton.url("/console/sign-in"));
        chromium.browser.findElement(By.id("token")).sendKeys(token, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.not(ExpectedConditions.urlContains("/console/sign-in")));
    }

    private void open(String path) {
        chromium.browser.get(baton.url(path));
    }

    /** A form post from the page (as a stray or forged form would send it); "status body". */
    private String post(String path, String form) {
        return (String) ((JavascriptExecutor) chromium.browser)
                .executeAsyncScript(
                        "var done = arguments[arguments.length - 1];"
                                + " fetch(arguments[0], {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: arguments[1]})"
                                + ".then(function (r) { return r.text().then(function (t) { done(r.status + ' ' + t); }); });",
                        path,
                        form);
    }

    private List<JsonNode> alerts(String status) {
        try {
            List<JsonNode> out = new java.util.ArrayList<>();
            baton.get("/v0/projects/bench/alerts?status=" + status)
                    .get("alerts")
                    .forEach(out::add);
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private String status() {
        try {
            return baton.get("/v0/projects/bench/alerts/" + alert).get("status").asText();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private String text(By by) {
        return chromium.wait.until(d -> d.findElement(by).getText());
    }

    private String attribute(By by, String name) {
        return chromium.wait.until(d -> d.findElement(by).getAttribute(name));
    }

    private void click(By by) {
        chromium.wait.until(d -> {
            d.findElement(by).click();
            return true;
        });
    }
}
