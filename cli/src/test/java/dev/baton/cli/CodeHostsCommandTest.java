package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.ResourceId;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.store.CodeHost;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton code-hosts} against a real server (docs/pull-requests.md, docs/cli.md): a GitHub
 * repository added with its token from a file, its token replaced from standard input (the same
 * host, so its sticky comments stay), a GitLab project on its own API root, a malformed one
 * refused, the delivery log read and a host deleted; no command and no answer ever shows a token.
 */
class CodeHostsCommandTest {
    static final String FIRST = "ghs_first0123456789secret";
    static final String SECOND = "ghs_second9876543210secret";
    static final String GITLAB = "glpat-thirdsecretvalue";

    @TempDir
    Path dir;

    BatonServer server;
    String url;
    Path home;
    final StringBuilder everything = new StringBuilder();

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.start(ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0));
        url = "http://127.0.0.1:" + server.port();
        home = Files.createDirectories(dir.resolve("home"));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** As the admin (its token file), with {@code stdin} on standard input. */
    CliRun.Result admin(String stdin, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(
                "--server",
                url,
                "--token-file",
                dir.resolve("data").resolve("admin-token").toString()));
        CliRun.Result r = CliRun.run(
                new CliEnvironment(
                        Map.of(), home, Clock.systemUTC(), new BufferedReader(new StringReader(stdin)), false),
                all.toArray(String[]::new));
        everything.append(r.out()).append(r.err());
        return r;
    }

    List<CodeHost> stored() {
        long project = server.store()
                .organizations()
                .findProject(ResourceId.of("web"))
                .orElseThrow()
                .id();
        return server.store().alerts().codeHosts().hosts(project);
    }

    @Test
    void setListReplaceAndDeleteWithoutEverShowingTheToken() throws Exception {
        assertThat(admin("", "orgs", "create", "--name", "acme").exit()).isZero();
        assertThat(admin("", "projects", "create", "--name", "web", "--org", "acme")
                        .exit())
                .isZero();

        Path tokenFile = Files.writeString(dir.resolve("github.token"), FIRST + "\n");
        CliRun.Result added = admin(
                "",
                "code-hosts",
                "set",
                "--project",
                "web",
                "--kind",
                "github",
                "--repository",
                "acme/widgets",
                "--host-token-file",
                tokenFile.toString());
        assertThat(added.exit()).as(added.err()).isZero();
        assertThat(added.err()).contains("Added github acme/widgets");
        assertThat(added.out()).contains("acme/widgets").contains("https://api.github.com");
        assertThat(stored())
                .singleElement()
                .satisfies(h -> assertThat(h.token()).isEqualTo(FIRST));
        String uuid = stored().getFirst().uuid();

        // The same kind and repository again: the token is replaced on the same host.
        CliRun.Result replaced = admin(
                SECOND + "\n",
                "code-hosts",
                "set",
                "--project",
                "web",
                "--kind",
                "github",
                "--repository",
                "acme/widgets",
                "--json");
        assertThat(replaced.exit()).as(replaced.err()).isZero();
        assertThat(replaced.err()).contains("Replaced the token of github acme/widgets (" + uuid + ")");
        assertThat(replaced.json().path("uuid").asText()).isEqualTo(uuid);
        assertThat(replaced.json().has("token")).isFalse();
        assertThat(stored()).singleElement().satisfies(h -> {
            assertThat(h.uuid()).isEqualTo(uuid);
            assertThat(h.token()).isEqualTo(SECOND);
        });

        CliRun.Result gitlab = admin(
                GITLAB + "\n",
                "code-hosts",
                "set",
                "--project",
                "web",
                "--kind",
                "gitlab",
                "--repository",
                "group/widgets",
                "--api-url",
                "https://gitlab.example.com/api/v4");
        assertThat(gitlab.exit()).as(gitlab.err()).isZero();

        CliRun.Result list = admin("", "code-hosts", "list", "--project", "web");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out())
                .contains("HOST", "KIND", "REPOSITORY", "API URL")
                .contains(uuid, "github", "acme/widgets", "https://api.github.com")
                .contains("gitlab", "group/widgets", "https://gitlab.example.com/api/v4");

        // Refused with the server's reason, and nothing stored; no token at all is refused before any call.
        CliRun.Result bad =
                admin("tok\n", "code-hosts", "set", "--project", "web", "--kind", "bitbucket", "--repository", "a/b");
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.err()).contains("kind must be github or gitlab");
        CliRun.Result none =
                admin("", "code-hosts", "set", "--project", "web", "--kind", "github", "--repository", "acme/other");
        assertThat(none.exit()).isNotZero();
        assertThat(none.err()).contains("no token");
        assertThat(stored()).hasSize(2);

        CliRun.Result deliveries = admin("", "code-hosts", "deliveries", "--project", "web", uuid);
        assertThat(deliveries.exit()).as(deliveries.err()).isZero();
        assertThat(deliveries.out()).contains("(no deliveries)");

        CliRun.Result audit = admin("", "audit", "list", "--action", "code_host.updated", "--json");
        assertThat(audit.exit()).as(audit.err()).isZero();
        assertThat(audit.out()).contains(uuid);

        CliRun.Result deleted = admin("", "code-hosts", "delete", "--project", "web", uuid);
        assertThat(deleted.exit()).as(deleted.err()).isZero();
        assertThat(stored()).singleElement().satisfies(h -> assertThat(h.kind()).isEqualTo("gitlab"));

        CliRun.Result allAudit = admin("", "audit", "list", "--json");
        assertThat(allAudit.out()).contains("code_host.created", "code_host.deleted");
        assertThat(everything.toString()).doesNotContain(FIRST, SECOND, GITLAB);
    }
}
