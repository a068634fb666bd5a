package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.message.LogStream;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.TestRunner;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real headless Chromium (Debian's chromium and chromium-driver, driven by
 * Selenium pointed at the installed driver, so nothing is downloaded), against the assembled
 * server. One browser and one server for the class, to keep CI time small; the tests run in order
 * and build on each other (signed in once). Without the browser they skip and say why. Screenshots
 * of each page go to target/console-screenshots/.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("browser")
class ConsoleBrowserTest {
    static final Path SHOTS = Path.of("target", "console-screenshots");

    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    WebDriver browser;
    WebDriverWait wait;
    String[] runner;
    TestRunner runnerChannel;
    String canceledJobPage;

    @BeforeAll
    void start() throws Exception {
        boolean present = HeadlessChromium.present("ConsoleBrowserTest");
        assumeTrue(present, "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
        browser = chromium.browser;
        wait = chromium.wait;
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    void stop() throws Exception {
        if (runnerChannel != null) runnerChannel.crash();
        if (chromium != null) chromium.close();
        if (baton != null) baton.close();
        if (profile != null) deleteTree(profile);
        if (dataDir != null) deleteTree(dataDir);
    }

    @Test
    @Order(1)
    void aWrongTokenIsRefused() throws Exception {
        browser.get(baton.url("/"));
        wait.until(ExpectedConditions.urlContains("/console/sign-in"));
        browser.findElement(By.id("token")).sendKeys("baton_admin_not-the-token", Keys.ENTER);
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("sign-in-error")));
        assertThat(error.getText()).contains("not valid");
        assertThat(browser.getCurrentUrl()).endsWith("/console/sign-in");
        shot("sign-in");
    }

    @Test
    @Order(2)
    void signInAndSeeARunnerAppearWhenItConnects() throws Exception {
        browser.get(baton.url("/console/sign-in"));
        browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        wait.until(ExpectedConditions.urlContains("/console/runners"));
        runner = baton.createRunner("bench box");
        browser.navigate().refresh();
        // Read inside the wait: the page's first resync may swap the row between finding and reading it.
        wait.until(d -> {
            String text = d.findElement(By.cssSelector("tr[data-runner='" + runner[0] + "']"))
                    .getText();
            return text.contains("offline") && text.contains("never connected");
        });
        markPage();
        waitForEventStream();

        runnerChannel = baton.connect(runner[0], runner[1]);
        runnerChannel.send(new RunnerMessage.Ready(60, "linux", "x86_64", "test", 1));
        wait.until(d -> d.findElement(By.cssSelector("tr[data-runner='" + runner[0] + "']"))
                .getText()
                .contains("idle"));
        wait.until(d -> d.findElement(By.cssSelector("tr[data-runner='" + runner[0] + "']"))
                .getText()
                .contains("waiting for work, 1 slot"));
        assertPageNotReloaded();
        shot("runners");
    }

    @Test
    @Order(3)
    void aJobsStateAndLiveLogChangeOnItsPageAndItIsCanceledFromThePage() throws Exception {
        String job = baton.submit();
        ClaimedJob claimed = runnerChannel.expect(ServerMessage.Job.class).job();
        browser.get(baton.url("/console/projects/bench/jobs/" + job));
        wait.until(d -> d.findElement(By.id("job-status")).getText().equals("claimed"));
        markPage();
        waitForEventStream();
        wait.until(d -> d.findElement(By.id("log-state")).getText().contains("Following"));

        runnerChannel.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        runnerChannel.expect(ServerMessage.Ack.class);
        wait.until(d -> d.findElement(By.id("job-status")).getText().equals("running"));
        wait.until(d -> d.getTitle()
                .equals("running · Job " + job.substring(0, 8) + " · Baton")); // the tab tells the state, live
        runnerChannel.send(
                new RunnerMessage.Log(claimed.uuid(), claimed.lease(), 1, LogStream.STDOUT, 0, "warming up\n", null));
        runnerChannel.send(new RunnerMessage.Log(
                claimed.uuid(), claimed.lease(), 2, LogStream.STDERR, 0, "<b>not markup</b>\n", null));
        wait.until(d -> d.findElement(By.id("log")).getText().contains("<b>not markup</b>"));
        assertThat(browser.findElement(By.id("log")).getText()).contains("warming up");
        assertThat(browser.findElements(By.cssSelector("#log b")))
                .as("log text is never parsed as HTML")
                .isEmpty();
        assertPageNotReloaded();
        shot("job-running");

        canceledJobPage = "/console/projects/bench/jobs/" + job;
        browser.findElement(By.id("cancel")).click();
        // Cancel asks first; "keep" goes back to the job page, unchanged.
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("keep"))).click();
        wait.until(d -> d.findElement(By.id("job-status")).getText().equals("running"));
        assertThat(baton.status(job)).isEqualTo("running");
        browser.findElement(By.id("cancel")).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("confirm")))
                .click();
        wait.until(d -> d.findElement(By.id("job-status")).getText().equals("canceled"));
        ServerMessage message = runnerChannel.next();
        while (message instanceof ServerMessage.Ack) message = runnerChannel.next(); // the log messages' acks
        assertThat(message).isInstanceOf(ServerMessage.Cancel.class);
        ServerMessage.Cancel cancel = (ServerMessage.Cancel) message;
        assertThat(cancel.job()).isEqualTo(claimed.uuid());
        assertThat(baton.status(job)).isEqualTo("canceled");
        runnerChannel.send(new RunnerMessage.Canceled(claimed.uuid(), claimed.lease(), List.of()));
        wait.until(d -> d.findElement(By.id("log-state")).getText().contains("complete"));
        shot("job-canceled");
    }

    @Test
    @Order(4)
    void theOtherPagesRenderAndTheQueueUpdatesLive() throws Exception {
        browser.get(baton.url("/console/queue"));
        markPage();
        waitForEventStream();
        // The runner is still busy with its canceled attempt until it sends ready again: the job waits.
        String waiting = baton.submit();
        wait.until(d -> d.findElement(By.id("queue")).getText().contains(waiting.substring(0, 8)));
        assertPageNotReloaded();
        shot("queue");
        browser.get(baton.url("/console/specs"));
        // A live part fetches itself once when its stream opens: read it through a wait, which looks again after a
        // swap.
        wait.until(d ->
                d.findElement(By.cssSelector("tr[data-spec='small']")).getText().contains("small"));
        shot("specs");
        browser.get(baton.url("/console/projects/bench/jobs"));
        wait.until(d -> d.findElement(By.id("jobs")).getText().contains("canceled")
                && d.findElement(By.id("jobs")).getText().contains("pending"));
        shot("jobs");
        browser.get(baton.url("/console/projects/bench/registry"));
        assertThat(browser.findElement(By.id("repositories")).getText()).contains("v1");
        shot("registry");
    }

    @Test
    @Order(5)
    void pagesFitAPhoneWidthAndTheKeyboardReachesTheContent() throws Exception {
        browser.manage().window().setSize(new Dimension(390, 844));
        try {
            for (String path : List.of(
                    "/console/runners",
                    "/console/specs",
                    "/console/queue",
                    "/console/projects/bench/jobs",
                    "/console/projects/bench/registry",
                    canceledJobPage)) {
                browser.get(baton.url(path));
                Number overflow = (Number) ((JavascriptExecutor) browser)
                        .executeScript(
                                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
                assertThat(overflow.intValue())
                        .as(path + " scrolls sideways at 390 px")
                        .isLessThanOrEqualTo(0);
            }
            shot("jobs-phone");
            browser.get(baton.url("/console/runners"));
            browser.findElement(By.tagName("body")).sendKeys(Keys.TAB);
            WebElement skip = browser.switchTo().activeElement();
            assertThat(skip.getText()).isEqualTo("Skip to content");
            skip.sendKeys(Keys.ENTER);
            assertThat(browser.switchTo().activeElement().getAttribute("id")).isEqualTo("main");
        } finally {
            browser.manage().window().setSize(new Dimension(1280, 900));
        }
    }

    @Test
    @Order(6)
    void aLostEventStreamReconnectsByItself() throws Exception {
        browser.get(baton.url("/console/runners"));
        markPage();
        waitForEventStream();
        runnerChannel.crash();
        runnerChannel = null;
        baton.restart(); // every stream of the old server ends; the page is left as it was
        String[] other = baton.createRunner("second box");
        waitForEventStream(); // reconnected to the new server, without a reload
        try (TestRunner second = baton.connect(other[0], other[1])) {
            second.send(new RunnerMessage.Ready(60, "linux", "x86_64", "test", 1));
            // It takes the job left waiting by the queue test at once.
            wait.until(d -> d.findElement(By.id("runners")).getText().contains("second box"));
            wait.until(d -> d.findElement(By.cssSelector("tr[data-runner='" + other[0] + "']"))
                    .getText()
                    .contains("busy"));
        }
        assertPageNotReloaded();
    }

    private void markPage() {
        chromium.markPage();
    }

    private void assertPageNotReloaded() {
        assertThat(chromium.pageKept()).as("no reload").isTrue();
    }

    /** htmx opens the page's event stream after load; changes before it is open would not be heard. */
    private void waitForEventStream() {
        wait.until(d -> chromium.eventStreamOpen());
    }

    private void shot(String name) throws Exception {
        File png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static void deleteTree(Path root) throws Exception {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }
}
