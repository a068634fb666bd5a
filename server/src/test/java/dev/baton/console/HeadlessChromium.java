package dev.baton.console;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's Chromium driven through its installed chromedriver (Selenium downloads nothing), for the
 * console's browser tests, with the page checks they share.
 */
final class HeadlessChromium implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Duration WAIT = Duration.ofSeconds(15);

    final WebDriver browser;
    final WebDriverWait wait;

    /** Whether the browser is installed; the tests skip and say so otherwise. */
    static boolean present(String test) {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!present)
            System.err.println(test + " SKIPPED: no " + CHROMIUM + " and " + CHROMEDRIVER
                    + " (apt-get install chromium chromium-driver)");
        return present;
    }

    HeadlessChromium(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile,
                "--window-size=1280,900");
        options.setCapability("goog:loggingPrefs", java.util.Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        wait = new WebDriverWait(browser, WAIT);
        // htmx swaps fragments while a condition reads them: an element found just before a swap is stale, so look
        // again
        wait.ignoring(StaleElementReferenceException.class);
    }

    Object script(String js) {
        return ((JavascriptExecutor) browser).executeScript(js);
    }

    /** Marks the current document; a reload would lose the mark. */
    void markPage() {
        script("window.__batonConsoleTestMark = 'kept';");
    }

    boolean pageKept() {
        return "kept".equals(script("return window.__batonConsoleTestMark;"));
    }

    /** Whether the page's console event stream (htmx's SSE extension) is open. */
    boolean eventStreamOpen() {
        return Boolean.TRUE.equals(script("var e = document.querySelector('[sse-connect]');"
                + "var s = e && e['htmx-internal-data'] && e['htmx-internal-data'].sseEventSource;"
                + "return !!s && s.readyState === 1;"));
    }

    /** What the page wrote to the browser's console (errors, CSP refusals), for a failing wait's message. */
    String browserLog() {
        StringBuilder out = new StringBuilder("browser console:");
        browser.manage()
                .logs()
                .get("browser")
                .forEach(
                        e -> out.append("\n  ").append(e.getLevel()).append(' ').append(e.getMessage()));
        return out.toString();
    }

    @Override
    public void close() {
        browser.quit();
    }
}
