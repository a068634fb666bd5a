package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.TestRunner;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * Every console page checked by axe-core (WCAG 2 A and AA rules and axe's best practices) in
 * headless Chromium: zero violations. axe-core comes from the npm registry at build time onto the
 * test classpath only (server/package.json) and is injected by this test; users never get it.
 * Also: no page scrolls sideways at phone width (390 px).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("browser")
class ConsoleAccessibilityTest {
    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    TestRunner runner;
    String axe;
    final List<String> pages = new ArrayList<>();
    /** A pending job on a 200-character branch: no log to wait for. */
    String pendingJobPage;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleAccessibilityTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        try (InputStream in = ConsoleAccessibilityTest.class.getResourceAsStream("/axe/axe.min.js")) {
            assertThat(in)
                    .as("axe-core on the test classpath (server/package.json, npm ci in the build)")
                    .isNotNull();
            axe = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        dataDir = Files.createTempDirectory("baton-console-a11y-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
        String[] r = baton.createRunner("a11y box");
        runner = baton.connect(r[0], r[1]);
        ClaimedJob job = baton.runningJobOn(runner);
        runner.send(new RunnerMessage.Log(
                job.uuid(),
                job.lease(),
                1,
                LogStream.STDOUT,
                0,
                "\u001b[1;31mFAILED\u001b[0m \u001b[32mok\u001b[0m \u001b[33mwarn\u001b[0m \u001b[34mblue\u001b[0m \u001b[36mcyan\u001b[0m\nplain\n",
                null));
        runner.send(new RunnerMessage.Log(job.uuid(), job.lease(), 2, LogStream.STDERR, 0, "an error line\n", null));
        // A threshold and judged direct runs, the last one raising an alert: the alerts and metrics pages have content.
        baton.post(
                "/v0/projects/bench/thresholds",
                Map.of("testbed", "lab", "measure", "latency", "model", "t_test", "upper_boundary", 0.95),
                201);
        double[] values = {10, 12, 11, 13, 14, 16};
        for (int i = 0; i < values.length; i++) {
            java.time.Instant end =
                    java.time.Instant.parse("2025-12-01T00:00:00Z").plusSeconds(3600L * (i + 1));
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
                            "0123abc" + i,
                            "start_time",
                            end.minusSeconds(1).toString(),
                            "end_time",
                            end.toString(),
                            "results",
                            List.of(Map.of("sort", Map.of("latency", Map.of("value", values[i]))))),
                    201);
        }
        // A roll of a runner that is not connected: its step is skipped, so the roll's page has a finished row.
        String spare = baton.createRunner("a11y spare")[0];
        String roll = baton.post(
                        "/v0/rolls",
                        Map.of(
                                "runner",
                                spare,
                                "url",
                                "https://downloads.example/baton.jar",
                                "checksum",
                                "c".repeat(64)),
                        201)
                .get("uuid")
                .asText();
        // A pool with a busy machine that took the job, and one that failed: the pool page's table.
        var store = baton.server.store();
        var taken = store.runs().findJob(job.uuid()).orElseThrow();
        // Another node holds the scaler lease (taken before the pool exists): this server's own
        // scaler, which runs on every node, leaves the machines as written (no start for the
        // pending jobs below, no stop), so the page shows what the test wrote.
        if (!store.pools()
                .takeScalerLease(
                        "another-node",
                        baton.clock.instant(),
                        baton.clock.instant().plus(java.time.Duration.ofDays(1))))
            throw new IllegalStateException("the scaler lease was taken before any pool existed");
        var pool = store.pools()
                .createPool(
                        "a11y-pool",
                        new dev.baton.store.PoolSettings(
                                taken.specId(),
                                Map.of("zone", "b"),
                                0,
                                2,
                                java.time.Duration.ofMinutes(5),
                                java.time.Duration.ofMinutes(3),
                                "exec",
                                "{}"),
                        baton.clock.instant());
        var busy = store.pools().addMachine(pool.id(), null, taken.id(), "node-a", baton.clock.instant());
        store.pools().setProviderId(busy.id(), "i-0a11y", baton.clock.instant());
        var failed = store.pools().addMachine(pool.id(), null, null, "node-a", baton.clock.instant());
        store.pools()
                .moveMachine(
                        failed.id(),
                        java.util.Set.of(dev.baton.store.PoolMachineState.STARTING),
                        dev.baton.store.PoolMachineState.FAILED,
                        "the start command exited with 3: quota exceeded in zone b for this account",
                        null,
                        baton.clock.instant());
        store.pools()
                .setBackoff(
                        pool.id(),
                        baton.clock.instant().plusSeconds(60),
                        "the start command exited with 3: quota exceeded",
                        true,
                        baton.clock.instant());
        pages.add("/console/pools");
        String jobPage = "/console/projects/bench/jobs/" + job.uuid();
        // issue 44: a 200-character branch made the job page 2,121 px wide at 390 px.
        String longBranch = baton.run(baton.admin, Map.of("branch", "feature-" + "x".repeat(192)));
        pendingJobPage = "/console/projects/bench/jobs/" + longBranch;
        pages.add(pendingJobPage);
        pages.addAll(List.of(
                "/console/runners",
                "/console/specs",
                "/console/queue",
                "/console/projects",
                "/console/projects/bench/jobs",
                "/console/projects/bench/jobs?status=running",
                jobPage,
                jobPage + "/compare",
                "/console/projects/bench/registry",
                "/console/projects/bench/alerts",
                "/console/projects/bench/metrics",
                "/console/projects/bench/metrics?benchmark=sort&measure=latency",
                "/console/runners/new",
                "/console/specs/new",
                "/console/specs/small/edit",
                "/console/runners/" + r[0] + "/specs",
                "/console/organizations",
                "/console/organizations/acme",
                "/console/rolls",
                "/console/rolls/new",
                "/console/rolls/" + roll));
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
    void everyPageHasNoAxeViolationsAndNoneScrollsSidewaysOnAPhone() {
        chromium.browser.get(baton.url("/console/sign-in"));
        assertThat(violations()).as("/console/sign-in").isEmpty();
        chromium.browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.urlContains("/console/runners"));
        for (String page : pages) {
            open(page);
            assertThat(violations()).as(page).isEmpty();
        }
        chromium.browser.manage().window().setSize(new Dimension(390, 844));
        try {
            for (String page : pages) {
                open(page);
                Number overflow = (Number) chromium.script(
                        "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
                assertThat(overflow.intValue())
                        .as(page + " scrolls sideways at 390 px")
                        .isLessThanOrEqualTo(0);
                assertThat(violations()).as(page + " at 390 px").isEmpty();
            }
        } finally {
            chromium.browser.manage().window().setSize(new Dimension(1280, 900));
        }
    }

    /** Opens a page and waits until its live parts and log have settled. */
    private void open(String page) {
        chromium.browser.get(baton.url(page));
        if (page.contains("benchmark="))
            chromium.wait.until(d -> "true".equals(d.findElement(By.id("plot")).getAttribute("data-drawn")));
        if (page.contains("/jobs/") && !page.endsWith("/compare") && !page.equals(pendingJobPage))
            chromium.wait.until(d -> d.findElement(By.id("log")).getText().contains("an error line"));
        chromium.wait.until(d -> chromium.eventStreamOpen()
                || d.findElements(By.cssSelector("[sse-connect]")).isEmpty());
    }

    /** axe's violations on the current page, one line each: rule, impact, the elements. */
    @SuppressWarnings("unchecked")
    private List<String> violations() {
        chromium.script(axe);
        List<Map<String, Object>> found = (List<Map<String, Object>>) ((JavascriptExecutor) chromium.browser)
                .executeAsyncScript("var done = arguments[arguments.length - 1];"
                        + "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})"
                        + ".then(function (r) { done(r.violations.map(function (v) { return {id: v.id, impact: v.impact,"
                        + "  nodes: v.nodes.map(function (n) { return n.target.join(' ') + ': ' + n.failureSummary; }).join(' | ')}; })); })"
                        + ".catch(function (e) { done([{id: 'axe-error', impact: 'n/a', nodes: String(e)}]); });");
        List<String> lines = new ArrayList<>();
        for (Map<String, Object> v : found) lines.add(v.get("id") + " (" + v.get("impact") + "): " + v.get("nodes"));
        return lines;
    }
}
