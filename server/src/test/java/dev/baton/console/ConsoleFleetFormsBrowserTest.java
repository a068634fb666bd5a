package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's fleet forms (issue 41) in a real headless Chromium against the assembled server:
 * the admin creates a spec, edits it, creates a runner (its key shown once) and chooses its specs
 * by clicking; then each project role signs in and finds no form, and a post it forges from its
 * own page with its own CSRF token is refused and changes nothing. Tests run in order, one browser.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("browser")
class ConsoleFleetFormsBrowserTest {
    static final Path SHOTS = Path.of("target", "console-screenshots");

    Path dataDir;
    Path profile;
    ConsoleServer baton;
    HeadlessChromium chromium;
    WebDriver browser;
    WebDriverWait wait;
    String key;

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleFleetFormsBrowserTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-fleet-test");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        chromium = new HeadlessChromium(profile);
        browser = chromium.browser;
        wait = chromium.wait;
        Files.createDirectories(SHOTS);
    }

    @AfterAll
    void stop() throws Exception {
        if (chromium != null) chromium.close();
        if (baton != null) baton.close();
        if (profile != null) deleteTree(profile);
        if (dataDir != null) deleteTree(dataDir);
    }

    void signIn(String token) {
        browser.manage().deleteAllCookies();
        browser.get(baton.url("/console/sign-in"));
        browser.findElement(By.id("token")).sendKeys(token, Keys.ENTER);
        wait.until(d -> !d.getCurrentUrl().endsWith("/console/sign-in"));
    }

    @Test
    @Order(1)
    void theAdminCreatesASpecAndEditsIt() throws Exception {
        signIn(baton.admin);
        browser.get(baton.url("/console/specs"));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("new-spec"))).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("spec-form")));
        browser.findElement(By.id("spec-name")).sendKeys("large");
        new Select(browser.findElement(By.id("spec-architecture"))).selectByValue("x86_64");
        browser.findElement(By.id("spec-cpu")).sendKeys("eight"); // a mistake: said on the form, what was typed kept
        browser.findElement(By.id("spec-memory")).sendKeys("16");
        browser.findElement(By.id("spec-disk")).sendKeys("100");
        browser.findElement(By.id("save-spec")).click();
        assertThat(wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("form-error")))
                        .getText())
                .contains("whole number");
        assertThat(browser.findElement(By.id("spec-memory")).getAttribute("value"))
                .isEqualTo("16");
        shot("spec-form-error");
        WebElement cpu = browser.findElement(By.id("spec-cpu"));
        cpu.clear();
        cpu.sendKeys("8");
        browser.findElement(By.id("save-spec")).click();
        wait.until(d ->
                d.findElement(By.cssSelector("tr[data-spec='large']")).getText().contains("8 CPU"));
        assertThat(baton.get("/v0/specs/large").get("memory").asLong()).isEqualTo(16L << 30);

        browser.findElement(By.cssSelector("tr[data-spec='large'] a[data-edit-spec]"))
                .click();
        WebElement name = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("spec-name")));
        assertThat(browser.findElements(By.id("spec-cpu")))
                .as("the shape is fixed once created")
                .isEmpty();
        name.clear();
        name.sendKeys("Large box");
        browser.findElement(By.id("spec-queue-timeout")).sendKeys("900");
        browser.findElement(By.id("save-spec")).click();
        wait.until(d ->
                d.findElement(By.cssSelector("tr[data-spec='large']")).getText().contains("Large box"));
        assertThat(baton.get("/v0/specs/large").get("queue_timeout").asInt()).isEqualTo(900);
        shot("specs-after-edit");
    }

    @Test
    @Order(2)
    void theAdminCreatesARunnerSeesItsKeyOnceAndChoosesItsSpecs() throws Exception {
        browser.get(baton.url("/console/runners"));
        wait.until(ExpectedConditions.elementToBeClickable(By.id("new-runner"))).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("runner-name")))
                .sendKeys("rack 1");
        browser.findElement(By.cssSelector("input[data-spec='large']")).click();
        browser.findElement(By.id("create-runner")).click();
        WebElement shown = wait.until(ExpectedConditions.presenceOfElementLocated(By.id("new-key")));
        key = shown.getAttribute("value");
        assertThat(key).matches("baton_runner_[0-9a-f]{64}");
        assertThat(browser.findElement(By.id("main")).getText()).contains("only this once");
        shot("runner-created");
        browser.get(baton.url("/console/runners"));
        wait.until(d -> d.findElement(By.cssSelector("tr[data-runner='rack-1']"))
                .getText()
                .contains("large"));
        assertThat(browser.getPageSource()).as("the key is never shown again").doesNotContain(key);
        try (var runner = baton.connect("rack-1", key)) {
            assertThat(runner.welcome()).isNotNull();
        }

        // The live table is swapped when the runner's connection comes and goes: click inside the wait, which looks
        // again.
        wait.until(d -> {
            d.findElement(By.cssSelector("tr[data-runner='rack-1'] a[data-assign-specs]"))
                    .click();
            return true;
        });
        WebElement small =
                wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("input[data-spec='small']")));
        WebElement large = browser.findElement(By.cssSelector("input[data-spec='large']"));
        assertThat(large.isSelected()).isTrue();
        assertThat(small.isSelected()).isFalse();
        small.click();
        large.click();
        browser.findElement(By.id("save-specs")).click();
        wait.until(d -> d.getCurrentUrl().endsWith("/console/runners"));
        assertThat(baton.get("/v0/runners/rack-1/specs").findValuesAsText("slug"))
                .containsExactly("small");
        assertThat(baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action"))
                .contains("spec.created", "spec.updated", "runner.created", "runner.spec_added", "runner.spec_removed");
    }

    @Test
    @Order(3)
    void theFormsFitAPhoneWidth() {
        browser.manage().window().setSize(new Dimension(390, 844));
        try {
            for (String path : List.of(
                    "/console/runners/new",
                    "/console/specs/new",
                    "/console/specs/large/edit",
                    "/console/runners/rack-1/specs")) {
                browser.get(baton.url(path));
                Number overflow = (Number) ((JavascriptExecutor) browser)
                        .executeScript(
                                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
                assertThat(overflow.intValue())
                        .as(path + " scrolls sideways at 390 px")
                        .isLessThanOrEqualTo(0);
            }
        } finally {
            browser.manage().window().setSize(new Dimension(1280, 900));
        }
    }

    /** The role table: no project role may change the fleet, so none sees a form and none's post does anything. */
    @Test
    @Order(4)
    void everyProjectRoleSeesNoFormAndItsForgedPostsAreRefused() throws Exception {
        String spec = baton.get("/v0/specs/large").get("uuid").asText();
        for (String role : ConsoleFleetFormsTest.PROJECT_ROLES) {
            signIn(baton.tokenWithRole("b-" + role, "bench", role));
            browser.get(baton.url("/console/projects"));
            assertThat(browser.findElements(By.linkText("Runners")))
                    .as(role + " has no Runners section")
                    .isEmpty();
            for (String path : List.of(
                    "/console/runners/new",
                    "/console/specs/new",
                    "/console/specs/large/edit",
                    "/console/runners/rack-1/specs")) {
                browser.get(baton.url(path));
                assertThat(browser.findElement(By.tagName("h1")).getText())
                        .as(role + " " + path)
                        .isEqualTo("Refused");
                assertThat(browser.findElements(By.cssSelector("form.fleet-form")))
                        .as(role + " " + path)
                        .isEmpty();
            }
            // A post made from the role's own page, with its own valid CSRF token: the role table refuses it.
            browser.get(baton.url("/console/projects"));
            for (String[] post : List.of(
                    new String[] {"/console/runners", "name=sneaky"},
                    new String[] {"/console/runners/rack-1/specs", "spec=" + spec},
                    new String[] {"/console/specs", "name=sneaky&architecture=x86_64&cpu=1&memory=1&disk=1"},
                    new String[] {"/console/specs/large", "name=renamed"})) {
                Object status = ((JavascriptExecutor) browser)
                        .executeAsyncScript(
                                "var done = arguments[arguments.length - 1];"
                                        + "var csrf = document.querySelector('input[name=_csrf]').value;"
                                        + "fetch(arguments[0], {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
                                        + " body: '_csrf=' + encodeURIComponent(csrf) + '&' + arguments[1]}).then(r => done(r.status), e => done(String(e)));",
                                post[0],
                                post[1]);
                assertThat(((Number) status).intValue())
                        .as(role + " POST " + post[0])
                        .isEqualTo(403);
            }
            shot("fleet-refused-" + role);
        }
        assertThat(baton.get("/v0/runners").findValuesAsText("slug")).containsExactly("rack-1");
        assertThat(baton.get("/v0/specs").findValuesAsText("slug")).containsExactlyInAnyOrder("small", "large");
        assertThat(baton.get("/v0/specs/large").get("name").asText()).isEqualTo("Large box");
        assertThat(baton.get("/v0/runners/rack-1/specs").findValuesAsText("slug"))
                .containsExactly("small");
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
