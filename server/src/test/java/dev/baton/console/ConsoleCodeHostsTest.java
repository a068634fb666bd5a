package dev.baton.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.ResourceId;
import dev.baton.store.CodeHost;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's code hosts page (docs/console.md, docs/pull-requests.md) over plain HTTP: a
 * maintainer adds a GitHub repository with its token, gives it a new token (the same host), sees
 * the API's refusal of a malformed one with what was typed (never the token) and deletes it after
 * a confirmation; no page ever carries a token; a post without the form's CSRF token or by a role
 * below maintainer changes nothing.
 */
class ConsoleCodeHostsTest {
    static final String PAGE = "/console/projects/bench/code-hosts";

    @TempDir
    Path dataDir;

    ConsoleServer baton;
    ConsoleBrowser browser;
    final StringBuilder pages = new StringBuilder();

    @BeforeEach
    void start() throws Exception {
        baton = new ConsoleServer(dataDir);
        browser = new ConsoleBrowser(baton::url);
    }

    @AfterEach
    void stop() {
        browser.close();
        baton.close();
    }

    HttpResponse<String> get(String path, String cookie) throws Exception {
        var r = browser.get(path, cookie);
        pages.append(r.body());
        return r;
    }

    HttpResponse<String> post(String path, String cookie, String... fields) throws Exception {
        var r = browser.post(path, cookie, fields);
        pages.append(r.body());
        return r;
    }

    String signIn(String token) throws Exception {
        return browser.signIn(token);
    }

    List<CodeHost> stored() {
        long project = baton.server
                .store()
                .organizations()
                .findProject(ResourceId.of("bench"))
                .orElseThrow()
                .id();
        return baton.server.store().alerts().codeHosts().hosts(project);
    }

    List<String> audited() throws Exception {
        return baton.get("/v0/audit?limit=1000").path("events").findValuesAsText("action");
    }

    @Test
    void aMaintainerAddsReplacesAndDeletesAHostAndNoPageShowsItsToken() throws Exception {
        String session = signIn(baton.tokenWithRole("keeper", "bench", "maintainer"));
        assertThat(get("/console/projects", session).body()).contains("href=\"" + PAGE + "\"");
        var empty = get(PAGE, session);
        assertThat(empty.statusCode()).isEqualTo(200);
        assertThat(empty.body()).contains("No code host yet").contains("id=\"code-host-form\"");
        String csrf = ConsoleHttpTest.csrfOf(empty.body());

        var added = post(
                PAGE,
                session,
                "_csrf",
                csrf,
                "kind",
                "github",
                "repository",
                "acme/widgets",
                "token",
                "ghs_first_secret");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(303);
        assertThat(added.headers().firstValue("Location")).hasValue(PAGE + "?done=added");
        assertThat(stored())
                .singleElement()
                .satisfies(h -> assertThat(h.token()).isEqualTo("ghs_first_secret"));
        String uuid = stored().getFirst().uuid();
        assertThat(get(PAGE + "?done=added", session).body())
                .contains("Added the code host.")
                .contains("data-code-host=\"" + uuid + "\"")
                .contains("acme/widgets")
                .contains("https://api.github.com")
                .contains("kept, never shown");

        // The same kind and repository: a new token on the same host.
        var replaced = post(
                PAGE,
                session,
                "_csrf",
                csrf,
                "kind",
                "github",
                "repository",
                "acme/widgets",
                "token",
                "ghs_second_secret");
        assertThat(replaced.headers().firstValue("Location")).hasValue(PAGE + "?done=replaced");
        assertThat(stored()).singleElement().satisfies(h -> {
            assertThat(h.uuid()).isEqualTo(uuid);
            assertThat(h.token()).isEqualTo("ghs_second_secret");
        });

        // The API's refusal, with what was typed except the token; nothing stored.
        var refused = post(
                PAGE,
                session,
                "_csrf",
                csrf,
                "kind",
                "github",
                "repository",
                "no-slash",
                "token",
                "ghs_third_secret",
                "api_url",
                "https://ghe.example.com/api/v3");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body())
                .contains("id=\"form-error\"")
                .contains("repository must be owner/name")
                .contains("value=\"no-slash\"")
                .contains("value=\"https://ghe.example.com/api/v3\"");
        assertThat(stored()).hasSize(1);

        // Without the form's CSRF token nothing changes.
        assertThat(post(PAGE, session, "kind", "github", "repository", "acme/other", "token", "t")
                        .statusCode())
                .isEqualTo(403);
        assertThat(post(PAGE + "/" + uuid + "/delete", session, "confirm", "yes")
                        .statusCode())
                .isEqualTo(403);
        assertThat(stored()).hasSize(1);

        // Delete asks first; only the confirmation's yes deletes.
        var ask = post(PAGE + "/" + uuid + "/delete", session, "_csrf", csrf);
        assertThat(ask.statusCode()).isEqualTo(200);
        assertThat(ask.body()).contains("Delete code host " + uuid + "?").contains("name=\"confirm\" value=\"yes\"");
        assertThat(stored()).hasSize(1);
        var deleted = post(PAGE + "/" + uuid + "/delete", session, "_csrf", csrf, "confirm", "yes");
        assertThat(deleted.headers().firstValue("Location")).hasValue(PAGE + "?done=deleted");
        assertThat(stored()).isEmpty();
        assertThat(get(PAGE, session).body()).contains("No code host yet");

        assertThat(audited()).contains("code_host.created", "code_host.updated", "code_host.deleted");
        assertThat(pages.toString()).doesNotContain("ghs_first_secret", "ghs_second_secret", "ghs_third_secret");
    }

    /** The API decides: below maintainer the page is refused and a forged post stores nothing. */
    @Test
    void rolesBelowMaintainerSeeNoHostsAndTheirPostsAreRefused() throws Exception {
        baton.post(
                "/v0/projects/bench/code-hosts",
                java.util.Map.of("kind", "gitlab", "repository", "group/widgets", "token", "glpat-secret"),
                201);
        for (String role : List.of("viewer", "submitter")) {
            String session = signIn(baton.tokenWithRole("u-" + role, "bench", role));
            var page = get(PAGE, session);
            assertThat(page.statusCode()).as(role).isEqualTo(403);
            assertThat(page.body()).as(role).doesNotContain("group/widgets");
            String csrf =
                    ConsoleHttpTest.csrfOf(get("/console/projects", session).body());
            var forged = post(
                    PAGE, session, "_csrf", csrf, "kind", "github", "repository", "acme/widgets", "token", "ghs_x");
            assertThat(forged.statusCode()).as(role).isEqualTo(403);
            String host = stored().getFirst().uuid();
            assertThat(post(PAGE + "/" + host + "/delete", session, "_csrf", csrf, "confirm", "yes")
                            .statusCode())
                    .as(role)
                    .isEqualTo(403);
        }
        assertThat(stored()).singleElement().satisfies(h -> assertThat(h.kind()).isEqualTo("gitlab"));
        assertThat(pages.toString()).doesNotContain("glpat-secret");
    }
}
