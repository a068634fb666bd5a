package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The job log viewer in headless Chromium (docs/console.md, "The log"): ANSI colours as spans and
 * no escape reaching the page, a line link, search, the raw download, and a 50 MB log that opens
 * and scrolls with only the visible rows in the page. The tests run in order on one job, then a big one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("browser")
class ConsoleLogViewerTest {
    /**
     * The big log: 50 iterations of 1 MiB of stdout each (what a runner keeps per stream and
     * iteration), 100-byte lines: 50 MiB in all.
     */
    static final int BIG_ITERATIONS = 50;

    static final int LINES_PER_ITERATION = (1 << 20) / 100;
    static final int BIG_LINES = BIG_ITERATIONS * LINES_PER_ITERATION;

    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    TestRunner runner;
    ClaimedJob job;
    String jobPage;
    final StringBuilder stdout = new StringBuilder();
    long seq;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleLogViewerTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-log-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir, 64 << 20);
        chromium = new HeadlessChromium(profile);
        chromium.browser.get(baton.url("/console/sign-in"));
        chromium.browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.urlContains("/console/runners"));
        String[] r = baton.createRunner("log box");
        runner = baton.connect(r[0], r[1]);
        job = baton.runningJobOn(runner);
        jobPage = baton.url("/console/projects/bench/jobs/" + job.uuid());
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

    private void log(String text) {
        stdout.append(text);
        runner.send(new RunnerMessage.Log(job.uuid(), job.lease(), ++seq, LogStream.STDOUT, 0, text, null));
    }

    @Test
    @Order(1)
    void ansiColoursBecomeSpansAndNoEscapeReachesThePage() {
        log("\u001b[1;31mFAILED\u001b[0m plain \u001b[32mpassed\u001b[0m\n");
        log(
                "\u001b]8;;https://example.invalid/\u0007a link\u001b]8;;\u0007 \u001b[2K\u001b[1Gcleared \u001b[?25lcursor \u001b(Bcharset\n");
        StringBuilder lines = new StringBuilder();
        for (int i = 3; i <= 300; i++)
            lines.append("line ")
                    .append(i)
                    .append(i == 50 || i == 250 ? " needle" : "")
                    .append('\n');
        log(lines.toString());
        chromium.browser.get(jobPage + "#L1");
        chromium.wait
                .withMessage(chromium::browserLog)
                .until(d -> d.findElement(By.id("log")).getText().contains("FAILED"));

        WebElement failed =
                chromium.browser.findElement(By.cssSelector("#log .log-row[data-line='1'] .ansi-red-fg.ansi-bold"));
        assertThat(failed.getText()).isEqualTo("FAILED");
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-row[data-line='1'] .ansi-green-fg"))
                        .getText())
                .isEqualTo("passed");
        String line2 = chromium.browser
                .findElement(By.cssSelector("#log .log-row[data-line='2'] .log-text"))
                .getText();
        assertThat(line2).isEqualTo("a link cleared cursor charset");
        Object raw =
                chromium.script("return /[\\u0000-\\u0008\\u000b-\\u001f\\u007f]/.test(document.body.textContent);");
        assertThat(raw).as("no control character reaches the page").isEqualTo(false);
        // Times on demand: when each line's chunk reached the server (the API's "at"), on the server's clock.
        assertThat(chromium.browser.findElements(By.cssSelector("#log .log-time")))
                .isEmpty();
        chromium.browser.findElement(By.id("log-times")).click();
        chromium.wait.until(d -> d.findElement(By.cssSelector("#log .log-row[data-line='1'] .log-time"))
                .getText()
                .equals("00:00:00.000"));
        assertThat(chromium.browser.findElement(By.id("log-times")).getAttribute("aria-pressed"))
                .isEqualTo("true");
        // The log is high on the page: its box starts within the first screen at 1280×900.
        Number top = (Number) chromium.script("return document.getElementById('log').getBoundingClientRect().top;");
        assertThat(top.doubleValue()).isLessThan(900 - 200);
        // Only rows in view are in the page, yet the last line is there once scrolled to.
        chromium.script("var box = document.getElementById('log'); box.scrollTop = box.scrollHeight;");
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row[data-line='300']"))
                .isEmpty());
    }

    @Test
    @Order(2)
    void eachLiveEntryCarriesWhenItsChunkArrived() throws Exception {
        var entries =
                baton.get("/v0/projects/bench/jobs/" + job.uuid() + "/logs").get("entries");
        assertThat(entries.get(0).get("at").asText())
                .isEqualTo(baton.clock.instant().toString());
    }

    @Test
    @Order(2)
    void aLineLinkOpensThePageAtThatLineHighlighted() {
        chromium.browser.get(jobPage + "#L120");
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row.log-selected[data-line='120']"))
                .isEmpty());
        Boolean inView = (Boolean) chromium.script(
                "var row = document.querySelector('#log .log-row.log-selected').getBoundingClientRect();"
                        + "var box = document.getElementById('log').getBoundingClientRect();"
                        + "return row.top >= box.top && row.bottom <= box.bottom;");
        assertThat(inView).as("line 120 is scrolled into the log's view").isTrue();
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-selected .log-n"))
                        .getAttribute("href"))
                .endsWith("#L120");
        // Clicking another line's number moves the highlight and the address.
        chromium.browser
                .findElement(By.cssSelector("#log .log-row[data-line='121'] .log-n"))
                .click();
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row.log-selected[data-line='121']"))
                .isEmpty());
        assertThat(chromium.browser.getCurrentUrl()).endsWith("#L121");
    }

    @Test
    @Order(3)
    void scrollingUpPausesFollowingTheEndAndAnIterationCollapses() {
        chromium.browser.get(jobPage);
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row[data-line='300']"))
                .isEmpty());
        assertThat(chromium.browser.findElement(By.id("log-follow")).getAttribute("aria-pressed"))
                .isEqualTo("true");
        chromium.script("document.getElementById('log').scrollTop = 0;"); // the user scrolls up
        chromium.wait.until(d ->
                d.findElement(By.id("log-follow")).getAttribute("aria-pressed").equals("false"));
        String height = (String) chromium.script("return document.querySelector('#log .log-spacer').style.height;");
        log("line 301\n");
        chromium.wait.until(d -> !chromium.script("return document.querySelector('#log .log-spacer').style.height;")
                .equals(height));
        assertThat(((Number) chromium.script("return document.getElementById('log').scrollTop;")).intValue())
                .as("paused: it stays where the user is")
                .isZero();
        chromium.browser.findElement(By.id("log-follow")).click();
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row[data-line='301']"))
                .isEmpty());

        chromium.script("document.getElementById('log').scrollTop = 0;");
        chromium.wait.until(d -> {
            d.findElement(By.cssSelector("#log .log-section[data-iteration='0']"))
                    .click();
            return true;
        });
        chromium.wait.until(
                d -> d.findElements(By.cssSelector("#log .log-row[data-line]")).isEmpty());
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-section"))
                        .getAttribute("aria-expanded"))
                .isEqualTo("false");
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-section"))
                        .getText())
                .as("headed as the job saw it: BATON_ITERATION=1 (issue 44)")
                .endsWith("Iteration 1");
        chromium.browser.findElement(By.cssSelector("#log .log-section")).click();
        chromium.wait.until(d ->
                !d.findElements(By.cssSelector("#log .log-row[data-line='1']")).isEmpty());
    }

    @Test
    @Order(3)
    void searchHighlightsAndStepsThroughMatches() {
        chromium.browser.get(jobPage);
        chromium.wait.until(d -> d.findElement(By.id("log")).getText().contains("FAILED")
                || d.findElement(By.id("log")).getText().contains("line"));
        WebElement input = chromium.browser.findElement(By.id("log-search"));
        input.sendKeys("needle", Keys.ENTER);
        chromium.wait.until(d -> d.findElement(By.id("log-matches")).getText().equals("1 of 2 matches"));
        WebElement current = chromium.wait.until(d -> d.findElement(By.cssSelector("#log .log-row.log-current")));
        assertThat(current.getAttribute("data-line")).isEqualTo("50");
        assertThat(current.findElement(By.tagName("mark")).getText()).isEqualTo("needle");
        chromium.browser.findElement(By.id("log-next")).click();
        chromium.wait.until(d -> d.findElement(By.id("log-matches")).getText().equals("2 of 2 matches"));
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-row.log-current"))
                        .getAttribute("data-line"))
                .isEqualTo("250");
        chromium.browser.findElement(By.id("log-prev")).click();
        chromium.wait.until(d -> d.findElement(By.id("log-matches")).getText().equals("1 of 2 matches"));
    }

    @Test
    @Order(4)
    void theRawLogDownloadsWholeAsPlainTextAlsoOnceTheJobEnded() throws Exception {
        chromium.browser.get(jobPage);
        assertThat(download()).isEqualTo("text/plain;charset=utf-8\n" + stdout);
        // The runner could not send one line live: the viewer shows a marker until the job ends.
        String notSent = "sent only in the result\n";
        stdout.append(notSent);
        runner.send(RunnerMessage.Log.dropped(job.uuid(), job.lease(), ++seq, LogStream.STDOUT, 0, notSent.length()));
        chromium.wait.until(
                d -> d.findElement(By.id("log-download")) != null && download().contains("bytes not kept"));
        runner.send(new RunnerMessage.Completed(
                job.uuid(), job.lease(), List.of(new IterationResult(0, stdout.toString(), "", Map.of()))));
        chromium.wait.until(d -> d.findElement(By.id("log-state")).getText().contains("complete"));
        assertThat(download()).as("from the stored output").isEqualTo("text/plain;charset=utf-8\n" + stdout);
        assertThat(chromium.browser.findElement(By.id("log-download")).getAttribute("download"))
                .startsWith("job-");
        // The viewer that followed the job live read it again: the marker's place holds the line.
        chromium.browser.findElement(By.id("log-search")).sendKeys("only in the result", Keys.ENTER);
        chromium.wait.until(d -> d.findElement(By.id("log-matches")).getText().equals("1 of 1 match"));
        chromium.browser.findElement(By.id("log-search")).clear();
        chromium.browser.findElement(By.id("log-search")).sendKeys("not kept", Keys.ENTER);
        chromium.wait.until(d -> d.findElement(By.id("log-matches")).getText().equals("No match"));
        chromium.browser.findElement(By.id("log-search")).clear();
    }

    @Test
    @Order(6)
    void afterARestartTheRawLogAndTheViewerComeWholeFromTheStoredOutput() throws Exception {
        runner.crash();
        runner = null;
        baton.restart(); // no node holds the log live any more: it is cut from the stored output
        chromium.browser.get(jobPage);
        chromium.wait.until(d -> d.findElement(By.id("log-state")).getText().contains("complete"));
        assertThat(download()).isEqualTo("text/plain;charset=utf-8\n" + stdout);
        chromium.browser.findElement(By.id("log-search")).sendKeys("needle", Keys.ENTER);
        chromium.wait.until(d -> d.findElement(By.id("log-matches")).getText().equals("1 of 2 matches"));
    }

    /** The raw log as the signed-in browser fetches it: its content type, a newline, its body. */
    private String download() {
        return (String)
                ((JavascriptExecutor) chromium.browser)
                        .executeAsyncScript(
                                "var done = arguments[arguments.length - 1];"
                                        + "fetch(document.getElementById('log-download').href).then(function (r) {"
                                        + "  return r.text().then(function (t) { done(r.headers.get('content-type') + '\\n' + t); }); });");
    }

    @Test
    @Order(5)
    void aFiftyMegabyteLogOpensAndScrollsWithOnlyTheVisibleRowsInThePage() throws Exception {
        List<IterationResult> results = new java.util.ArrayList<>();
        long bytes = 0;
        int n = 0;
        for (int it = 0; it < BIG_ITERATIONS; it++) {
            StringBuilder out = new StringBuilder(LINES_PER_ITERATION * 100);
            for (int i = 0; i < LINES_PER_ITERATION; i++) {
                n++;
                int start = out.length();
                out.append("line ")
                        .append(String.format(Locale.ROOT, "%07d", n))
                        .append(n % 1000 == 0 ? " \u001b[33mwarn\u001b[0m " : " ok ");
                while (out.length() - start < 99) out.append('x');
                out.append('\n');
            }
            bytes += out.length();
            results.add(new IterationResult(0, out.toString(), "", Map.of()));
        }
        runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        baton.submit();
        ServerMessage m = runner.next();
        while (m instanceof ServerMessage.Ack) m = runner.next(); // the earlier messages' acks
        assertThat(m).isInstanceOf(ServerMessage.Job.class);
        ClaimedJob bigJob = ((ServerMessage.Job) m).job();
        runner.send(new RunnerMessage.Running(bigJob.uuid(), bigJob.lease()));
        runner.sendInFrames(new RunnerMessage.Completed(bigJob.uuid(), bigJob.lease(), results), 1 << 20);
        chromium.wait.until(d -> {
            try {
                return !baton.status(bigJob.uuid().toString()).equals("running");
            } catch (Exception e) {
                return false;
            }
        });

        long opening = System.nanoTime();
        chromium.browser.get(baton.url("/console/projects/bench/jobs/" + bigJob.uuid()));
        new org.openqa.selenium.support.ui.WebDriverWait(chromium.browser, java.time.Duration.ofMinutes(3))
                .until(d -> d.findElement(By.id("log-state")).getText().contains("complete"));
        long openedMs = (System.nanoTime() - opening) / 1_000_000;
        assertThat(chromium.browser.findElement(By.id("log-state")).getText())
                .as("grouped by thousands, as every count (issue 44)")
                .contains(String.format(java.util.Locale.ROOT, "%,d lines", BIG_LINES));
        // It followed the end: the last line is shown.
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row[data-line='" + BIG_LINES + "']"))
                .isEmpty());

        // Scroll through it a frame at a time and measure the longest frame.
        @SuppressWarnings("unchecked")
        Map<String, Object> scrolled = (Map<String, Object>) ((JavascriptExecutor) chromium.browser)
                .executeAsyncScript(
                        "var done = arguments[arguments.length - 1]; var box = document.getElementById('log');"
                                + "var steps = 120, i = 0, last = performance.now(), worst = 0;"
                                + "function step() { var now = performance.now(); worst = Math.max(worst, now - last); last = now;"
                                + "  if (i++ >= steps) { done({worst: worst, rows: box.querySelectorAll('.log-row').length}); return; }"
                                + "  box.scrollTop = (box.scrollHeight - box.clientHeight) * (i / steps) * 0.9; requestAnimationFrame(step); }"
                                + "requestAnimationFrame(step);");
        double worstFrameMs = ((Number) scrolled.get("worst")).doubleValue();
        int rows = ((Number) scrolled.get("rows")).intValue();
        assertThat(rows)
                .as("only the rows in view (and a few around) are in the page")
                .isLessThan(200);
        // The middle of the log shows the line that belongs there.
        chromium.script(
                "var box = document.getElementById('log'); box.scrollTop = (box.scrollHeight - box.clientHeight) / 2;");
        // The rows are drawn on the next animation frame after the scroll: wait until the rows of
        // the last scroll position (90 %) have been replaced.
        String middle = chromium.wait.until(
                d -> (String) chromium.script("var row = document.querySelector('#log .log-row[data-line]');"
                        + "return row && Math.abs(row.dataset.line - " + BIG_LINES / 2 + ") < " + BIG_LINES / 4
                        + " ? row.dataset.line + ' ' + row.textContent : null;"));
        int shown = Integer.parseInt(middle.substring(0, middle.indexOf(' ')));
        assertThat(shown).isBetween(BIG_LINES / 2 - 200, BIG_LINES / 2 + 200);
        assertThat(middle).contains(String.format(Locale.ROOT, "line %07d", shown));
        System.out.printf(
                Locale.ROOT,
                "ConsoleLogViewerTest big log: %d lines, %.1f MiB: opened (streamed and counted) in %d ms;"
                        + " %d frames of scrolling, worst frame %.1f ms; %d rows in the page%n",
                BIG_LINES,
                bytes / 1048576.0,
                openedMs,
                120,
                worstFrameMs,
                rows);
    }
}
