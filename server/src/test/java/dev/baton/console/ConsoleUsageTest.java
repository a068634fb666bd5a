package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's organization page (issue 41): minutes per project in the server's month by
 * default, another period from the URL, the months around it linked; only for whom the API lets
 * read the organization's usage (its owners and the admin).
 */
class ConsoleUsageTest {
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

    HttpResponse<String> get(String path, String cookie) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(baton.url(path)))
                        .header("Cookie", cookie)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    String signIn(String token) throws Exception {
        var page = http.send(
                HttpRequest.newBuilder(URI.create(baton.url("/console/sign-in")))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        String pre = page.headers().allValues("Set-Cookie").stream()
                .filter(c -> c.startsWith(Csrf.PRE_SESSION_COOKIE + "="))
                .findFirst()
                .orElseThrow()
                .split(";")[0];
        String body = "_csrf=" + ConsoleHttpTest.csrfOf(page.body()) + "&token=" + token;
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
    void theOrganizationPageShowsTheMonthsMinutesPerProjectAndAnotherPeriodFromTheUrl() throws Exception {
        // The server's clock reads 2026-01-01: 1,250 minutes billed in January, 5 in February.
        JobUuid job = JobUuid.parse(baton.submit());
        baton.server
                .store()
                .liveness()
                .billMinutes(job, 1250, baton.clock.instant().plus(Duration.ofHours(1)));
        baton.server
                .store()
                .liveness()
                .billMinutes(job, 1255, baton.clock.instant().plus(Duration.ofDays(31)));
        String session = signIn(baton.admin);

        assertThat(get("/console/organizations", session).body()).contains("href=\"/console/organizations/acme\"");
        String january = get("/console/organizations/acme", session).body();
        assertThat(january)
                .contains("2026-01-01T00:00:00Z")
                .contains("2026-02-01T00:00:00Z")
                .containsPattern("data-project=\"bench\">.*<td>1,250</td>")
                .contains("All time: 1,255 minutes")
                .contains("href=\"/console/organizations/acme?from=2025-12-01&amp;to=2026-01-01\"")
                .contains("href=\"/console/organizations/acme?from=2026-02-01&amp;to=2026-03-01\"");
        String february =
                get("/console/organizations/acme?from=2026-02-01", session).body();
        assertThat(february).containsPattern("data-total><th scope=\"row\">All projects</th><td>5</td>");
        var bad = get("/console/organizations/acme?from=soon", session);
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("from must be a date");
        assertThat(get("/console/organizations/nobody", session).statusCode()).isEqualTo(404);
    }

    @Test
    void aProjectMemberWhoIsNotAnOwnerOfTheOrganizationSeesNoUsage() throws Exception {
        String session = signIn(baton.tokenWithRole("lead", "bench", "owner"));
        var page = get("/console/organizations/acme", session);
        assertThat(page.statusCode()).isIn(403, 404);
        assertThat(page.body()).doesNotContain("id=\"usage\"");
    }
}
