package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The job page and the job list in headless Chromium: comparing a run with the previous one on
 * its branch, collected files downloaded whole, the tab's title and icon, the list's columns and
 * filters (in the URL), live elapsed times, and Re-run creating a job with the same configuration.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("browser")
class ConsoleJobsTest {
    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    TestRunner runner;
    String alice;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleJobsTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-jobs-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
        chromium.browser.get(baton.url("/console/sign-in"));
        chromium.browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.urlContains("/console/runners"));
        String[] r = baton.createRunner("jobs box");
        runner = baton.connect(r[0], r[1]);
        alice = baton.tokenWithRole("alice", "bench", "submitter");
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

    /** Runs a job on branch "perf" to its end with a latency metric and the given collected files; returns its UUID. */
    private String processedRun(double latency, Map<String, String> files) throws Exception {
        String job = baton.run(baton.admin, Map.of("branch", "perf", "testbed", "lab"));
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ServerMessage m = runner.next();
        while (m instanceof ServerMessage.Ack) m = runner.next();
        ClaimedJob claimed = ((ServerMessage.Job) m).job();
        assertThat(claimed.uuid().toString()).isEqualTo(job);
        runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runner.send(new RunnerMessage.Completed(
                claimed.uuid(),
                claimed.lease(),
                List.of(new IterationResult(0, "{\"sort\":{\"latency\":{\"value\":" + latency + "}}}", "", files))));
        chromium.wait.until(d -> status(job).equals("processed"));
        return job;
    }

    // The page's live parts fetch themselves once its event stream opens and swap in: read and
    // click inside waits, which look again when an element was swapped away.
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

    private List<String> jobsListed() {
        return chromium.wait.until(d -> d.findElements(By.cssSelector("#jobs tbody tr")).stream()
                .map(e -> e.getAttribute("data-job"))
                .toList());
    }

    private String status(String job) {
        try {
            return baton.status(job);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @Order(1)
    void compareShowsEachMetricBesideThePreviousRunOnTheBranchWithTheChangeInPercent() throws Exception {
        processedRun(10, Map.of());
        String big = "x".repeat(20_000) + "\nthe end\n";
        String second = processedRun(12.5, Map.of("out/big.txt", big));

        chromium.browser.get(baton.url("/console/projects/bench/jobs/" + second));
        click(By.id("compare"));
        assertThat(text(By.cssSelector("#comparison tbody tr")))
                .contains("sort")
                .contains("latency")
                .contains("10")
                .contains("12.5")
                .contains("+25.0 % worse");
        // issue 44: judged by the measure's direction (latency: less is better), in words and colour.
        assertThat(attribute(By.cssSelector("#comparison tbody tr td.change"), "class"))
                .contains("verdict-worse");
        assertThat(chromium.browser.findElement(By.id("previous")).getAttribute("href"))
                .doesNotContain(second);
        assertThat(chromium.browser.findElement(By.id("alerts")).getText()).contains("Alerts");
    }

    @Test
    @Order(2)
    void collectedFilesAreListedAndDownloadWholeAndTheTabSaysTheState() throws Exception {
        String job = baton.get("/v0/projects/bench/jobs?status=processed")
                .at("/jobs/0/uuid")
                .asText();
        chromium.browser.get(baton.url("/console/projects/bench/jobs/" + job));
        String href = attribute(By.cssSelector("#files a[download]"), "href");
        assertThat(text(By.id("files"))).contains("out/big.txt").contains("19.5 KiB");
        String fetched = (String) ((JavascriptExecutor) chromium.browser)
                .executeAsyncScript(
                        "var done = arguments[arguments.length - 1]; fetch(arguments[0]).then(function (r) {"
                                + " return r.text().then(function (t) { done(r.headers.get('content-type') + '|' + r.headers.get('content-disposition') + '|' + t); }); });",
                        href);
        assertThat(fetched)
                .isEqualTo("application/octet-stream|attachment; filename=\"big.txt\"|" + "x".repeat(20_000)
                        + "\nthe end\n");
        assertThat(chromium.browser.getTitle()).startsWith("processed · Job " + job.substring(0, 8));
        String icon = (String) ((JavascriptExecutor) chromium.browser)
                .executeAsyncScript(
                        "var done = arguments[arguments.length - 1]; fetch(document.querySelector('link[rel=icon]').href)"
                                + ".then(function (r) { done(r.status + ' ' + r.headers.get('content-type')); });");
        assertThat(icon).isEqualTo("200 image/svg+xml");
    }

    @Test
    @Order(3)
    void theListShowsWhatRanAndWhoAndItsFiltersLiveInTheUrl() throws Exception {
        String mine = baton.run(baton.admin, Map.of());
        String hers = baton.run(alice, Map.of("branch", "feature-x", "testbed", "ci-box"));
        chromium.browser.get(baton.url("/console/projects/bench/jobs"));
        assertThat(text(By.cssSelector("tr[data-job='" + hers + "']")))
                .contains("feature-x")
                .contains("ci-box")
                .contains("small")
                .contains("bench")
                .contains("alice")
                .contains("pending");
        assertThat(text(By.cssSelector("tr[data-job='" + mine + "']")))
                .contains("main")
                .contains("admin");
        // A pending job's queue wait counts on the page; the submission time reads relative with the exact time on
        // hover.
        By wait = By.cssSelector("tr[data-job='" + hers + "'] [data-elapsed-since]");
        chromium.wait
                .withMessage(() -> "queue wait shows '" + text(wait) + "'; " + chromium.browserLog())
                .until(d -> d.findElement(wait).getText().matches("[0-9.]+ (ms|s)|\\d+ min \\d+ s"));
        assertThat(text(By.cssSelector("tr[data-job='" + hers + "'] time[data-relative]")))
                .endsWith("ago");
        assertThat(attribute(By.cssSelector("tr[data-job='" + hers + "'] time[data-relative]"), "title"))
                .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ");

        new Select(chromium.browser.findElement(By.name("submitter"))).selectByValue("alice");
        chromium.browser.findElement(By.name("branch")).sendKeys("feature-x");
        chromium.browser
                .findElement(By.cssSelector("form.filters button[type=submit]"))
                .click();
        chromium.wait.until(ExpectedConditions.urlContains("submitter=alice"));
        assertThat(chromium.browser.getCurrentUrl()).contains("branch=feature-x");
        assertThat(jobsListed()).containsExactly(hers);

        // The filters are the URL: opening it shows the same selection.
        chromium.browser.get(baton.url("/console/projects/bench/jobs?status=pending&submitter=admin"));
        assertThat(jobsListed()).containsExactly(mine);
        assertThat(new Select(chromium.browser.findElement(By.name("status")))
                        .getFirstSelectedOption()
                        .getAttribute("value"))
                .isEqualTo("pending");
        chromium.browser.get(baton.url("/console/projects/bench/jobs?spec=small&branch=perf"));
        assertThat(jobsListed()).hasSize(2);
    }

    @Test
    @Order(4)
    void reRunSubmitsAJobWithTheSameConfiguration() throws Exception {
        String hers = baton.get("/v0/projects/bench/jobs?status=pending")
                .at("/jobs/0/uuid")
                .asText();
        JsonNode original = baton.get("/v0/projects/bench/jobs/" + hers);
        chromium.browser.get(baton.url("/console/projects/bench/jobs/" + hers));
        click(By.id("rerun"));
        chromium.wait.until(
                d -> !d.getCurrentUrl().endsWith(hers) && d.getCurrentUrl().contains("/jobs/"));
        String again = chromium.browser
                .getCurrentUrl()
                .substring(chromium.browser.getCurrentUrl().lastIndexOf('/') + 1);
        JsonNode copy = baton.get("/v0/projects/bench/jobs/" + again);
        assertThat(copy.get("uuid").asText()).isNotEqualTo(hers);
        assertThat(copy.get("status").asText()).isEqualTo("pending");
        for (String field : List.of("spec", "timeout", "config"))
            assertThat(copy.get(field)).as(field).isEqualTo(original.get(field));
        assertThat(copy.get("report").asText())
                .isNotEqualTo(original.get("report").asText());
        chromium.wait.until(d -> d.findElement(By.id("job-state")).getText().contains("feature-x"));
        assertThat(text(By.id("job-state"))).contains("ci-box");
    }
}
