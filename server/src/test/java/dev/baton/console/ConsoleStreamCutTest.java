package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.server.testing.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The job page comes back to the truth whenever its event stream was away: a real Chromium talks to
 * a real server through {@link StreamCuttingProxy}, which cuts the page's {@code /console/events}
 * stream at random moments (seeded, the seed printed: rerun with {@code -Dbaton.test.seed=N}),
 * holds it away while the job changes state, and cuts it while the page is still loading. After
 * every change the page's badge must come to say what the API says, without a reload.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("browser")
class ConsoleStreamCutTest {
    static final int ROUNDS = 4;

    Path dataDir;
    Path profile;
    ConsoleServer baton;
    StreamCuttingProxy proxy;
    HeadlessChromium chromium;
    TestRunner runner;
    final ScheduledExecutorService chaos = Executors.newScheduledThreadPool(2);

    @BeforeAll
    void start() throws Exception {
        assumeTrue(
                HeadlessChromium.present("ConsoleStreamCutTest"),
                "browser tests skipped: install Debian's chromium and chromium-driver");
        dataDir = Files.createTempDirectory("baton-console-cut");
        profile = Files.createTempDirectory("baton-chromium-profile");
        baton = new ConsoleServer(dataDir);
        proxy = new StreamCuttingProxy(baton.server.port());
        chromium = new HeadlessChromium(profile);
        chromium.browser.get(proxy.url("/console/sign-in"));
        chromium.browser.findElement(By.id("token")).sendKeys(baton.admin, Keys.ENTER);
        chromium.wait.until(ExpectedConditions.urlContains("/console/runners"));
        String[] r = baton.createRunner("cut box");
        runner = baton.connect(r[0], r[1]);
    }

    @AfterAll
    void stop() throws Exception {
        chaos.shutdownNow();
        if (runner != null) runner.crash();
        if (chromium != null) chromium.close();
        if (proxy != null) proxy.close();
        if (baton != null) baton.close();
        if (profile != null) deleteTree(profile);
        if (dataDir != null) deleteTree(dataDir);
    }

    @Test
    void theJobPageShowsTheTruthAfterItsStreamIsCutAtRandomPointsIncludingDuringPageLoad() throws Exception {
        long seed = Long.getLong("baton.test.seed", System.nanoTime());
        System.out.println("ConsoleStreamCutTest seed " + seed + " (rerun with -Dbaton.test.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int round = 0; round < ROUNDS; round++) {
            String where = "round " + round + " of seed " + seed;
            runner.send(new RunnerMessage.Ready(60, "linux", "x86_64", "test", 1));
            String job = baton.submit();
            ClaimedJob claimed = next(ServerMessage.Job.class).job();

            // The page loads while the job starts, and the stream is cut around it: held away from
            // before the page asks for it (every other round), and cut again at random moments.
            boolean awayDuringLoad = round % 2 == 0;
            long startsAt = random.nextInt(400);
            List<ScheduledFuture<?>> scheduled = new ArrayList<>();
            if (awayDuringLoad) {
                proxy.block();
                scheduled.add(
                        chaos.schedule(proxy::unblock, startsAt + 100 + random.nextInt(900), TimeUnit.MILLISECONDS));
            }
            scheduled.add(chaos.schedule(
                    () -> runner.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease())),
                    startsAt,
                    TimeUnit.MILLISECONDS));
            for (int i = 0, cuts = 1 + random.nextInt(3); i < cuts; i++) {
                scheduled.add(chaos.schedule(proxy::cut, random.nextInt(1500), TimeUnit.MILLISECONDS));
            }
            chromium.browser.get(proxy.url("/console/projects/bench/jobs/" + job));
            chromium.markPage();
            for (ScheduledFuture<?> f : scheduled) f.get(30, TimeUnit.SECONDS);
            next(ServerMessage.Ack.class);
            assertThat(baton.status(job)).as(where).isEqualTo("running");
            chromium.wait
                    .withMessage(() -> where + ": the page says " + pageStatus() + ", the API running")
                    .until(d -> pageStatus().equals("running"));

            // The job ends while the stream is away; it comes back after a random while.
            proxy.block();
            runner.send(new RunnerMessage.Completed(
                    claimed.uuid(), claimed.lease(), List.of(new IterationResult(0, "{}", "", Map.of()))));
            next(ServerMessage.Ack.class);
            String ended = baton.status(job);
            assertThat(ended).as(where).isNotIn("pending", "claimed", "running");
            chaos.schedule(proxy::unblock, random.nextInt(1000), TimeUnit.MILLISECONDS)
                    .get(30, TimeUnit.SECONDS);
            chromium.wait
                    .withMessage(() -> where + ": the page says " + pageStatus() + ", the API " + apiStatus(job))
                    .until(d -> pageStatus().equals(apiStatus(job)));
            assertThat(chromium.pageKept())
                    .as(where + ": the page caught up without a reload")
                    .isTrue();
        }
        assertThat(proxy.cuts() + proxy.refused())
                .as("the stream was really cut")
                .isGreaterThanOrEqualTo(ROUNDS);
    }

    private String pageStatus() {
        return chromium.browser.findElement(By.id("job-status")).getText();
    }

    private String apiStatus(String job) {
        try {
            return baton.status(job);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The next server message of this type, past the acks of earlier messages. */
    private <T extends ServerMessage> T next(Class<T> type) {
        ServerMessage m = runner.next();
        while (!type.isInstance(m) && m instanceof ServerMessage.Ack) m = runner.next();
        assertThat(m).isInstanceOf(type);
        return type.cast(m);
    }

    private static void deleteTree(Path root) throws Exception {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }
}
