package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton users|members|tokens|audit|login|whoami} against a real server: a pipeline's token
 * is made by the admin, written to a private file, logged in with, used, listed and revoked.
 */
class AccessCommandsTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;
    Path home;

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

    /** As the admin (its token file), unless the arguments name another token. */
    CliRun.Result admin(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(
                "--server",
                url,
                "--token-file",
                dir.resolve("data").resolve("admin-token").toString()));
        return CliRun.run(CliRun.environment(home, Map.of()), all.toArray(String[]::new));
    }

    /** With whatever 'baton login' left in the config file. */
    CliRun.Result asLoggedIn(String stdin, String... args) {
        return CliRun.run(
                new CliEnvironment(
                        Map.of(), home, Clock.systemUTC(), new BufferedReader(new StringReader(stdin)), false),
                args);
    }

    @Test
    void aPipelineTokenFromCreationToRevocation() throws Exception {
        assertThat(admin("orgs", "create", "--name", "acme").exit()).isZero();
        assertThat(admin("projects", "create", "--name", "web", "--org", "acme").exit())
                .isZero();
        CliRun.Result user = admin("users", "create", "--name", "ci");
        assertThat(user.exit()).as(user.err()).isZero();
        assertThat(admin("members", "set", "--project", "web", "--user", "ci", "--role", "submitter")
                        .exit())
                .isZero();
        CliRun.Result members = admin("members", "list", "--project", "web");
        assertThat(members.out()).contains("ci").contains("submitter");

        // A role above the user's own is refused, and no file is left behind.
        Path refused = dir.resolve("refused.token");
        CliRun.Result tooHigh = admin(
                "tokens",
                "create",
                "--user",
                "ci",
                "--project",
                "web",
                "--role",
                "owner",
                "--secret-file",
                refused.toString());
        assertThat(tooHigh.exit()).isNotZero();
        assertThat(tooHigh.err()).contains("role_exceeds_membership");
        assertThat(refused).doesNotExist();

        Path secretFile = dir.resolve("web.token");
        CliRun.Result created = admin(
                "tokens",
                "create",
                "--user",
                "ci",
                "--project",
                "web",
                "--role",
                "submitter",
                "--expires",
                "30d",
                "--secret-file",
                secretFile.toString());
        assertThat(created.exit()).as(created.err()).isZero();
        String secret = Files.readString(secretFile).strip();
        assertThat(secret).startsWith("baton_token_");
        assertThat(Files.getPosixFilePermissions(secretFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(created.out() + created.err())
                .doesNotContain(secret)
                .contains("web.token")
                .contains("submitter on web");

        CliRun.Result login = asLoggedIn(secret + "\n", "login", "--server", url);
        assertThat(login.exit()).as(login.err()).isZero();
        assertThat(login.out()).contains("user:ci").doesNotContain(secret);
        Path config = home.resolve(".config/baton/config");
        assertThat(Files.getPosixFilePermissions(config)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(config)).contains("server = " + url).contains("token = " + secret);

        CliRun.Result whoami = asLoggedIn("", "whoami");
        assertThat(whoami.exit()).as(whoami.err()).isZero();
        assertThat(whoami.out()).contains("user:ci").contains("submitter on project web");
        CliRun.Result projects = asLoggedIn("", "projects", "list");
        assertThat(projects.out()).contains("web");
        CliRun.Result forbidden = asLoggedIn("", "runners", "create", "--name", "nope");
        assertThat(forbidden.exit()).isNotZero();
        assertThat(forbidden.err()).contains("forbidden");

        JsonNode tokens = admin("tokens", "list", "--user", "ci", "--json").json();
        assertThat(tokens).hasSize(1);
        String uuid = tokens.get(0).path("uuid").asText();
        assertThat(tokens.toString()).doesNotContain(secret);
        assertThat(admin("tokens", "revoke", uuid).exit()).isZero();
        CliRun.Result afterRevoke = asLoggedIn("", "whoami");
        assertThat(afterRevoke.exit()).isNotZero();
        assertThat(afterRevoke.err()).contains("unauthorized");

        CliRun.Result audit = admin("audit", "list", "--action", "token.revoked");
        assertThat(audit.exit()).as(audit.err()).isZero();
        assertThat(audit.out()).contains("admin").contains("/v0/tokens/" + uuid);
        assertThat(admin("audit", "list", "--json").json().path("events").findValuesAsText("action"))
                .contains("user.created", "member.set", "token.created", "token.revoked");
    }

    @Test
    void loginRefusesATokenTheServerDoesNotKnowAndWritesNothing() {
        CliRun.Result login = asLoggedIn("baton_token_" + "0".repeat(64) + "\n", "login", "--server", url);
        assertThat(login.exit()).isNotZero();
        assertThat(login.err()).contains("unauthorized");
        assertThat(home.resolve(".config/baton/config")).doesNotExist();
    }
}
