package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The log viewer's links, sections, ranges, times and wrapping in headless Chromium
 * (docs/console.md, "The log"): bare URLs and OSC 8 hyperlinks are links (never a javascript:
 * one), GitHub Actions' ::group:: and Buildkite's ---/+++ headings fold their lines, #L13-L15
 * selects a range, the Times column shows the time since the job started, and Wrap wraps a long
 * line instead of scrolling sideways. The tests run in order on one job.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("browser")
class ConsoleLogSectionsTest {
    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    TestRunner runner;
    ClaimedJob job;
    String jobPage;
    long seq;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleLogSectionsTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-sections-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir, 64 << 20);
        chromium = new HeadlessChromium(profile);
        chromium.browser.get(baton.url("/console/sign-in"));
        chromium.browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.urlContains("/console/runners"));
        String[] r = baton.createRunner("sections box");
        runner = baton.connect(r[0], r[1]);
        job = baton.runningJobOn(runner);
        jobPage = baton.url("/console/projects/bench/jobs/" + job.uuid());
        StringBuilder log = new StringBuilder()
                .append("docs at https://example.com/docs/x. and (https://example.com/a_(b))\n")
                .append("\u001b]8;;https://example.com/osc\u001b\\click here\u001b]8;;\u001b\\ after\n")
                .append("\u001b]8;;javascript:alert(1)\u0007evil\u001b]8;;\u0007 text\n")
                .append("::group::Compile\n")
                .append("compiling a\n")
                .append("compiling b\n")
                .append("::endgroup::\n")
                .append("+++ Tests\n")
                .append("test 1 passed\n")
                .append("--- Cleanup\n")
                .append("removed build\n")
                .append("x".repeat(600))
                .append('\n');
        for (int i = 13; i <= 40; i++) log.append("line ").append(i).append('\n');
        runner.send(new RunnerMessage.Log(job.uuid(), job.lease(), ++seq, LogStream.STDOUT, 0, log.toString(), null));
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

    List<WebElement> rows(int line) {
        return chromium.browser.findElements(By.cssSelector("#log .log-row[data-line='" + line + "']"));
    }

    @Test
    @Order(1)
    void aRangeOfLinesIsSelectedAndScrolledTo() {
        chromium.browser.get(jobPage + "#L13-L15");
        chromium.wait
                .withMessage(chromium::browserLog)
                .until(d -> !d.findElements(By.cssSelector("#log .log-row.log-selected[data-line='15']"))
                        .isEmpty());
        assertThat(chromium.browser.findElements(By.cssSelector("#log .log-row.log-selected")))
                .extracting(e -> e.getAttribute("data-line"))
                .containsExactly("13", "14", "15");
    }

    @Test
    @Order(2)
    void urlsAndOsc8HyperlinksAreLinksButNeverJavascript() {
        assertThat(chromium.browser.findElements(By.cssSelector("#log .log-row[data-line='1'] a.log-link")))
                .extracting(e -> e.getAttribute("href"))
                .containsExactly("https://example.com/docs/x", "https://example.com/a_(b)");
        WebElement osc = chromium.browser.findElement(By.cssSelector("#log .log-row[data-line='2'] a.log-link"));
        assertThat(osc.getAttribute("href")).isEqualTo("https://example.com/osc");
        assertThat(osc.getText()).isEqualTo("click here");
        assertThat(osc.getAttribute("rel")).contains("noopener");
        assertThat(rows(2).getFirst().getText()).endsWith("click here after");
        assertThat(chromium.browser.findElements(By.cssSelector("#log .log-row[data-line='3'] a")))
                .as("a javascript: hyperlink is shown as text")
                .extracting(e -> e.getAttribute("class"))
                .containsExactly("log-n");
        assertThat(rows(3).getFirst().findElement(By.className("log-text")).getText())
                .isEqualTo("evil text");
    }

    @Test
    @Order(3)
    void groupsAndBuildkiteHeadingsFoldTheirLines() {
        WebElement compile = chromium.browser.findElement(By.cssSelector("#log .log-row[data-line='4'] .log-fold"));
        assertThat(compile.getText()).isEqualTo("▸ Compile");
        assertThat(compile.getAttribute("aria-expanded")).isEqualTo("false");
        assertThat(rows(5))
                .as("a ::group:: starts folded, as GitHub Actions shows it")
                .isEmpty();
        assertThat(rows(7)).isEmpty();
        assertThat(rows(8).getFirst().getText()).contains("▾ Tests");
        assertThat(rows(9)).as("+++ is an expanded section").hasSize(1);
        // "--- Cleanup" starts folded, but a Buildkite section runs to the next heading: it holds
        // lines 11 to 40, and #L13-L15 (the first test) opened it.
        assertThat(rows(10).getFirst().getText()).contains("▾ Cleanup");
        assertThat(rows(11)).hasSize(1);
        chromium.browser
                .findElement(By.cssSelector("#log .log-row[data-line='10'] .log-fold"))
                .click();
        chromium.wait.until(d -> rows(11).isEmpty());
        assertThat(rows(10).getFirst().getText()).contains("▸ Cleanup");
        compile = chromium.browser.findElement(By.cssSelector("#log .log-row[data-line='4'] .log-fold"));
        compile.click();
        chromium.wait.until(d -> rows(5).size() == 1 && rows(6).size() == 1);
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-row[data-line='4'] .log-fold"))
                        .getAttribute("aria-expanded"))
                .isEqualTo("true");
        // A line link into a folded section unfolds it.
        chromium.browser.get(jobPage + "#L11");
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row.log-selected[data-line='11']"))
                .isEmpty());
    }

    @Test
    @Order(4)
    void timesShowTheClockAndTheTimeSinceTheJobStarted() {
        chromium.browser.findElement(By.id("log-times")).click();
        chromium.wait.until(d -> !d.findElements(By.cssSelector("#log .log-row[data-line='1'] .log-since"))
                .isEmpty());
        assertThat(chromium.browser
                        .findElement(By.cssSelector("#log .log-row[data-line='1'] .log-since"))
                        .getText())
                .matches("\\+\\d+:\\d\\d\\.\\d{3}");
        chromium.browser.findElement(By.id("log-times")).click();
    }

    @Test
    @Order(5)
    void wrapWrapsALongLineInsteadOfScrollingSideways() {
        chromium.browser.get(jobPage + "#L12");
        chromium.wait.until(d -> rows(12).size() == 1);
        Number wide = (Number)
                chromium.script("var b = document.getElementById('log'); return b.scrollWidth - b.clientWidth;");
        assertThat(wide.intValue())
                .as("unwrapped, the long line scrolls sideways")
                .isPositive();
        chromium.browser.findElement(By.id("log-wrap")).click();
        chromium.wait.until(d -> ((Number) chromium.script(
                                "return document.querySelector(\"#log .log-row[data-line='12']\").offsetHeight;"))
                        .intValue()
                > 20);
        Number after = (Number)
                chromium.script("var b = document.getElementById('log'); return b.scrollWidth - b.clientWidth;");
        assertThat(after.intValue()).isLessThanOrEqualTo(0);
        assertThat(chromium.browser.findElement(By.id("log-wrap")).getAttribute("aria-pressed"))
                .isEqualTo("true");
        assertThat(rows(40)).as("a short wrapped log is all in the page").hasSize(1);
    }
}
