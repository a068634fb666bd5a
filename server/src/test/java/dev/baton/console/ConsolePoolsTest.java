package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.PoolSettings;
import dev.baton.store.Store;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's pool page (issue 43) over plain HTTP against the whole server: a pool's
 * settings and its provider's back-off, its machines with their state, age (on the server's
 * clock), runner and the job each took; linked from the runners page; the admin's alone. The
 * pool and its machines are written to the server's store as the scaler writes them (the scaler
 * and the pool API are wired in elsewhere; this page only reads).
 */
class ConsolePoolsTest {
    @TempDir
    Path dataDir;

    ConsoleServer baton;
    final HttpClient http =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeEach
    void start() throws Exception {
        baton = new ConsoleServer(dataDir);
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        baton.close();
    }

    HttpResponse<String> get(String path, String session) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(baton.url(path)))
                        .header("Cookie", session)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Signs in with {@code token} through the sign-in form; returns the session cookie. */
    String signIn(String token) throws Exception {
        var form = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/sign-in")))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        String pre = form.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(Csrf.PRE_SESSION_COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
        String body = "_csrf=" + URLEncoder.encode(ConsoleHttpTest.csrfOf(form.body()), StandardCharsets.UTF_8)
                + "&token=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
        var r = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/sign-in")))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", pre)
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(303);
        return r.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(ConsoleSignIn.COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
    }

    @Test
    void theAdminSeesEachPoolWithItsMachinesTheirStateAgeAndJob() throws Exception {
        Store store = baton.server.store();
        String session = signIn(baton.admin);
        assertThat(get("/console/pools", session).body()).contains("No runner pools yet");
        assertThat(get("/console/runners", session).body()).contains("href=\"/console/pools\"");

        long spec = store.specs().findSpec(ResourceId.of("small")).orElseThrow().id();
        Instant t0 = baton.clock.instant();
        // The page is read from machines this test writes; another node holds the scaler lease, so
        // this server's own scaler (it runs on every node) leaves them as written.
        assertThat(store.pools().takeScalerLease("another-node", t0, t0.plus(Duration.ofDays(1))))
                .isTrue();
        Pool pool = store.pools()
                .createPool(
                        "burst",
                        new PoolSettings(
                                spec,
                                Map.of("zone", "b"),
                                0,
                                4,
                                Duration.ofMinutes(5),
                                Duration.ofMinutes(3),
                                "exec",
                                "{\"start\":\"./start\",\"stop\":\"./stop\"}"),
                        t0);
        String job = baton.submitAs(baton.admin);
        long jobId = store.runs().findJob(JobUuid.parse(job)).orElseThrow().id();
        long runner = store.runners()
                .createRunner("pool-burst-1", Slug.of("pool-burst-1"), "hash-of-a-key", t0)
                .id();

        PoolMachine busy = store.pools().addMachine(pool.id(), runner, jobId, "node-a", t0);
        store.pools().setProviderId(busy.id(), "i-0busy", t0);
        assertThat(store.pools()
                        .moveMachine(
                                busy.id(), Set.of(PoolMachineState.STARTING), PoolMachineState.BUSY, null, jobId, t0))
                .isTrue();
        baton.clock.advance(Duration.ofSeconds(75));
        Instant t1 = baton.clock.instant();
        PoolMachine failed = store.pools().addMachine(pool.id(), null, null, "node-a", t1);
        store.pools()
                .moveMachine(
                        failed.id(),
                        Set.of(PoolMachineState.STARTING),
                        PoolMachineState.FAILED,
                        "the start command exited with 3: quota exceeded",
                        null,
                        t1.plusSeconds(2));
        store.pools()
                .setBackoff(pool.id(), t1.plusSeconds(60), "the start command exited with 3: quota exceeded", true, t1);
        baton.clock.advance(Duration.ofSeconds(10));

        String page = get("/console/pools", session).body();
        String busyRow = row(page, busy.uuid().toString().substring(0, 8));
        assertThat(busyRow)
                .contains(">busy<")
                .contains("1 min 25 s") // 75 s + 10 s on the server's clock
                .contains("pool-burst-1")
                .contains("href=\"/console/projects/bench/jobs/" + job + "\"")
                .contains("i-0busy");
        String failedRow = row(page, failed.uuid().toString().substring(0, 8));
        assertThat(failedRow)
                .contains(">failed<")
                .contains("2.0 s") // its life: from its start to its end, not to now
                .contains("quota exceeded")
                .doesNotContain("/jobs/");
        assertThat(page)
                .contains("data-pool=\"burst\"")
                .contains("small")
                .contains("zone=b")
                .contains("provider <strong>exec</strong>")
                .contains("max 4")
                .contains("1 live")
                .contains("1 failed starts")
                .contains("data-pool-reason>the start command exited with 3: quota exceeded");

        // The back-off over, the reason stays (the scaler clears it) but no "no start before".
        baton.clock.advance(Duration.ofMinutes(2));
        assertThat(get("/console/pools", session).body()).doesNotContain("no start before");
    }

    /** Server-wide, like the runners page: every project role gets a 403 page without the pool. */
    @Test
    void everyRoleButTheAdminIsRefused() throws Exception {
        Store store = baton.server.store();
        long spec = store.specs().findSpec(ResourceId.of("small")).orElseThrow().id();
        store.pools()
                .createPool(
                        "secret-pool",
                        new PoolSettings(spec, Map.of(), 0, 1, Duration.ZERO, Duration.ofMinutes(1), "process", "{}"),
                        baton.clock.instant());
        for (String role : ConsoleFleetFormsTest.PROJECT_ROLES) {
            String session = signIn(baton.tokenWithRole("u-" + role, "bench", role));
            var page = get("/console/pools", session);
            assertThat(page.statusCode()).as(role).isEqualTo(403);
            assertThat(page.body()).as(role).doesNotContain("secret-pool");
        }
    }

    /** The table row of machine {@code id}. */
    private static String row(String page, String id) {
        int at = page.indexOf("data-machine=\"" + id + "\"");
        assertThat(at).as("machine " + id + " on the page").isNotNegative();
        return page.substring(at, page.indexOf("</tr>", at));
    }
}
