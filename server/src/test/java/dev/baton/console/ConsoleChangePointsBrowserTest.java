package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The metrics page's plot draws the stored change points in headless Chromium (docs/console.md,
 * "Metrics"): nine direct runs with a 20 % step at the seventh under a change_point threshold;
 * the plot reports one mark and its canvas holds the marks' colour, which no series of a
 * one-series plot uses.
 */
@Tag("browser")
class ConsoleChangePointsBrowserTest {
    static final Instant T0 = Instant.parse("2025-12-01T00:00:00Z");
    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleChangePointsBrowserTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-change-points-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
    }

    @AfterEach
    void stop() throws Exception {
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

    /** Pixels of the canvas within 12 of the change-point marks' colour, #6f42c1. */
    private long markPixels() {
        return ((Number) chromium.script("var c = document.querySelector('#plot canvas');"
                        + " var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; var n = 0;"
                        + " for (var i = 0; i < d.length; i += 4)"
                        + " if (d[i + 3] > 200 && Math.abs(d[i] - 111) < 12 && Math.abs(d[i + 1] - 66) < 12"
                        + " && Math.abs(d[i + 2] - 193) < 12) n++; return n;"))
                .longValue();
    }

    @Test
    void thePlotDrawsTheChangePoint() throws Exception {
        baton.post(
                "/v0/projects/bench/thresholds",
                Map.of("testbed", "lab", "measure", "latency", "model", "change_point"),
                201);
        double[] step = {10, 10.1, 9.9, 10, 10.2, 9.8, 12, 12.1, 11.9};
        for (int i = 0; i < step.length; i++) {
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
                            "aaaaaa" + (i + 1),
                            "start_time",
                            end.minusSeconds(1).toString(),
                            "end_time",
                            end.toString(),
                            "results",
                            List.of(Map.of("sort", Map.of("latency", Map.of("value", step[i]))))),
                    201);
        }
        chromium.browser.get(baton.url("/console/sign-in"));
        chromium.browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.not(ExpectedConditions.urlContains("/console/sign-in")));

        chromium.browser.get(baton.url("/console/projects/bench/metrics?benchmark=sort&measure=latency"));
        chromium.wait
                .withMessage(() -> chromium.browserLog())
                .until(d -> "true".equals(d.findElement(By.id("plot")).getAttribute("data-drawn")));
        assertThat(chromium.browser.findElement(By.id("plot")).getAttribute("data-change-points"))
                .isEqualTo("1");
        assertThat(markPixels()).as("pixels in the marks' colour").isGreaterThan(50);
        assertThat(chromium.browser.findElements(By.cssSelector("#change-points tbody tr")))
                .hasSize(1);
    }
}
