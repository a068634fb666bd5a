package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.testing.TestRunner;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;

/**
 * A fleet upgrade from the console (issue 41) in a real headless Chromium: the admin fills the
 * runners page's "Roll an update" form, lands on the roll's page, and watches it, without a
 * reload, go from the runner updating to the roll failed naming the runner that never came back.
 */
@Tag("browser")
class ConsoleRollsBrowserTest {
    static final Path SHOTS = Path.of("target", "console-screenshots");

    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleRollsBrowserTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-rolls-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
        Files.createDirectories(SHOTS);
    }

    @AfterEach
    void stop() throws Exception {
        if (chromium != null) chromium.close();
        if (baton != null) baton.close();
        for (Path root : new Path[] {profile, dataDir}) {
            if (root == null) continue;
            try (var paths = Files.walk(root)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void theAdminRollsAnUpdateAndWatchesItFailAtTheRunnerThatDidNotComeBack() throws Exception {
        String[] rack = baton.createRunner("rack 1");
        try (TestRunner runner = baton.connect(rack[0], rack[1])) {
            runner.send(new RunnerMessage.Ready(30, "linux", "x86_64", "1.0.0", 1));
            await().until(() -> "1.0.0"
                    .equals(baton.get("/v0/runners/" + rack[0]).path("version").asText(null)));
            WebDriver browser = chromium.browser;
            browser.get(baton.url("/console/sign-in"));
            browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
            chromium.wait.until(ExpectedConditions.urlContains("/console/runners"));
            new Select(browser.findElement(By.id("roll-target"))).selectByValue("runner:" + rack[0]);
            browser.findElement(By.id("roll-url")).sendKeys("https://downloads.example/baton.jar");
            browser.findElement(By.id("roll-checksum")).sendKeys("c".repeat(64));
            browser.findElement(By.id("roll-version")).sendKeys("2.0.0");
            WebElement timeout = browser.findElement(By.id("roll-timeout"));
            timeout.clear();
            timeout.sendKeys("300");
            browser.findElement(By.id("start-roll")).click();
            chromium.wait.until(ExpectedConditions.presenceOfElementLocated(By.id("roll")));
            String uuid = browser.getCurrentUrl().replaceFirst(".*/console/rolls/", "");

            runner.expect(ServerMessage.Drain.class);
            runner.expect(ServerMessage.Update.class);
            chromium.wait.until(d -> d.findElement(By.cssSelector("tr[data-step='" + rack[0] + "']"))
                    .getText()
                    .contains("updating"));
            shot("roll-updating");
            // A mark on this page's window: it is still there at the end, so the page was never reloaded.
            ((JavascriptExecutor) browser).executeScript("window.batonRollMark = 1");

            runner.crash();
            baton.clock.advance(Duration.ofSeconds(300));
            await().until(() ->
                    "failed".equals(baton.get("/v0/rolls/" + uuid).path("state").asText()));
            chromium.wait.until(
                    d -> d.findElement(By.id("roll-state")).getText().equals("failed"));
            assertThat(browser.findElement(By.id("roll-reason")).getText())
                    .contains("runner " + rack[0])
                    .contains("2.0.0");
            assertThat(browser.findElement(By.cssSelector("tr[data-step='" + rack[0] + "']"))
                            .getText())
                    .contains("failed");
            assertThat(((JavascriptExecutor) browser).executeScript("return window.batonRollMark"))
                    .isEqualTo(1L);
            shot("roll-failed");
        }
    }

    private void shot(String name) throws Exception {
        File png = ((TakesScreenshot) chromium.browser).getScreenshotAs(OutputType.FILE);
        Files.copy(png.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
