package dev.baton.web.auth;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.testing.TestImages;
import dev.baton.store.AuditEvent;
import dev.baton.store.AuditFilter;
import dev.baton.store.Role;
import dev.baton.web.http.TestServer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Access for people and pipelines on a real assembled server over real sockets, on one database
 * (subclasses: SQLite, PostgreSQL). The matrix is generated from the role table of docs/api.md:
 * every row is requested by every kind of caller, and the answer must be allowed or refused
 * exactly as the row says, so the docs and the code cannot drift apart.
 */
abstract class AccessContract {
    private static final Pattern ROW =
            Pattern.compile("^\\| (GET|POST|PUT|PATCH|DELETE) \\| `([^`]+)` \\| (\\w+) \\|.*$");
    private static final List<Role> ROLES = List.of(Role.VIEWER, Role.SUBMITTER, Role.MAINTAINER, Role.OWNER);
    /** 404 codes that mean "out of your reach" (answered as for a missing resource). */
    private static final Set<String> HIDDEN =
            Set.of("project_not_found", "organization_not_found", "token_not_found", "job_not_found");

    @TempDir
    Path dataDir;

    TestServer server;
    private final List<String> secrets = new CopyOnWriteArrayList<>();
    private final List<String> bodiesAfterCreation = new CopyOnWriteArrayList<>();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private Level batonLevel;
    private final AtomicInteger unique = new AtomicInteger();

    abstract String databaseUrl(Path dataDir);

    ServerConfig config() {
        return TestServer.config(dataDir, databaseUrl(dataDir));
    }

    @BeforeEach
    void start() {
        Logger baton = (Logger) LoggerFactory.getLogger("dev.baton");
        batonLevel = baton.getLevel();
        baton.setLevel(Level.DEBUG);
        logs.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logs);
        server = TestServer.assembled(dataDir, config());
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logs);
        ((Logger) LoggerFactory.getLogger("dev.baton")).setLevel(batonLevel);
    }

    // ---- the world every test starts from -------------------------------------------------

    /** Who calls: how to authenticate, and what scope kind it has. */
    record Caller(String label, String bearer, Role role, Scope scope) {}

    enum Scope {
        NONE,
        ADMIN,
        PROJECT,
        ORGANIZATION,
        OUTSIDER
    }

    private final Map<String, Caller> callers = new LinkedHashMap<>();
    private String runnerKey;
    private String jobByAdmin;
    private String report;

    /** Specs, a runner, organization acme with project web, organization other with project secret, and users with tokens. */
    void world() {
        ok(server.post(
                "/v0/specs",
                Map.of(
                        "name",
                        "s1",
                        "slug",
                        "s1",
                        "architecture",
                        "x86_64",
                        "cpu",
                        1,
                        "memory",
                        1L << 30,
                        "disk",
                        1L << 30)));
        runnerKey = ok(server.post("/v0/runners", Map.of("name", "r1", "slug", "r1")))
                .path("key")
                .asText();
        ok(server.post("/v0/organizations", Map.of("name", "acme", "slug", "acme", "plan", "team")));
        JsonNode web = ok(server.post("/v0/projects", Map.of("name", "web", "slug", "web", "organization", "acme")));
        TestImages.push(server.dataDir, ProjectUuid.parse(web.path("uuid").asText()), "", "v1", TestImages.BENCH);
        ok(server.post("/v0/organizations", Map.of("name", "other", "slug", "other")));
        JsonNode secret =
                ok(server.post("/v0/projects", Map.of("name", "secret", "slug", "secret", "organization", "other")));
        TestImages.push(server.dataDir, ProjectUuid.parse(secret.path("uuid").asText()), "", "v1", TestImages.BENCH);
        callers.put("none", new Caller("no token", null, null, Scope.NONE));
        callers.put("runner", new Caller("runner key", runnerKey, null, Scope.NONE));
        for (Role role : ROLES) {
            String r = role.wireName();
            callers.put(
                    "project-" + r,
                    new Caller("project " + r, user("p-" + r, "projects/web", "web", null, role), role, Scope.PROJECT));
            callers.put(
                    "org-" + r,
                    new Caller(
                            "organization " + r,
                            user("o-" + r, "organizations/acme", null, "acme", role),
                            role,
                            Scope.ORGANIZATION));
        }
        // Tokens narrower than their users: the token's role, not the member's, is what they may do.
        callers.put(
                "narrow-project",
                new Caller(
                        "viewer token of a project owner",
                        user("narrow-p", "projects/web", "web", null, Role.OWNER, Role.VIEWER),
                        Role.VIEWER,
                        Scope.PROJECT));
        callers.put(
                "narrow-org",
                new Caller(
                        "submitter token of an organization owner",
                        user("narrow-o", "organizations/acme", null, "acme", Role.OWNER, Role.SUBMITTER),
                        Role.SUBMITTER,
                        Scope.ORGANIZATION));
        callers.put(
                "outsider",
                new Caller(
                        "owner of another project",
                        user("outsider", "projects/secret", "secret", null, Role.OWNER),
                        Role.OWNER,
                        Scope.OUTSIDER));
        callers.put("admin", new Caller("admin token", server.token, Role.OWNER, Scope.ADMIN));
        // Users the member and token routes act on.
        ok(server.post("/v0/users", Map.of("name", "victim")));
        assertThat(server.send("PUT", "/v0/projects/web/members/victim", Map.of("role", "viewer"), server.token)
                        .status())
                .isEqualTo(200);
        ok(server.post("/v0/users", Map.of("name", "member-target")));
        JsonNode run = ok(server.post("/v0/run", Map.of("project", "web", "spec", "s1", "image", "v1")));
        jobByAdmin = run.path("job").path("uuid").asText();
        report = run.path("report").path("uuid").asText();
    }

    /** Creates a user with a role on {@code member} (a path under /v0) and a token of that role on the project or organization. */
    String user(String name, String member, String project, String organization, Role role) {
        return user(name, member, project, organization, role, role);
    }

    String user(String name, String member, String project, String organization, Role memberRole, Role tokenRole) {
        ok(server.post("/v0/users", Map.of("name", name)));
        assertThat(server.send(
                                "PUT",
                                "/v0/" + member + "/members/" + name,
                                Map.of("role", memberRole.wireName()),
                                server.token)
                        .status())
                .isEqualTo(200);
        Map<String, Object> body = new HashMap<>(Map.of("user", name, "role", tokenRole.wireName()));
        if (project != null) body.put("project", project);
        else body.put("organization", organization);
        return token(body, server.token);
    }

    String token(Map<String, Object> body, String bearer) {
        TestServer.Response r = server.send("POST", "/v0/tokens", body, bearer);
        assertThat(r.status()).as(r.text()).isEqualTo(201);
        String secret = r.json().path("secret").asText();
        assertThat(secret).startsWith(ApiTokenSecret.PREFIX).hasSize(ApiTokenSecret.LENGTH);
        secrets.add(secret);
        return secret;
    }

    JsonNode ok(TestServer.Response r) {
        assertThat(r.status()).as(r.text()).isBetween(200, 299);
        return r.json();
    }

    /** Sends and remembers the body, so that no later answer may be seen to carry a secret. */
    TestServer.Response call(String method, String path, Object body, String bearer) {
        TestServer.Response r = server.send(method, path, body, bearer);
        bodiesAfterCreation.add(r.text());
        return r;
    }

    // ---- the matrix -----------------------------------------------------------------------

    record Row(String method, String path, String role) {}

    static List<Row> roleTable() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("..", "docs", "api.md"));
        int start = -1;
        for (int i = 0; i < lines.size(); i++) if (lines.get(i).startsWith("<!-- role-table")) start = i;
        assertThat(start).as("docs/api.md has the role table marker").isPositive();
        List<Row> rows = new ArrayList<>();
        for (int i = start + 3; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            Matcher m = ROW.matcher(lines.get(i));
            assertThat(m.matches()).as("role table row: " + lines.get(i)).isTrue();
            rows.add(new Row(m.group(1), m.group(2), m.group(3)));
        }
        return rows;
    }

    @Test
    void theRoleTableOfTheDocsIsTheServersAndCoversEveryRoute() throws Exception {
        List<Row> rows = roleTable();
        Set<String> documented = new TreeSet<>();
        for (Row row : rows) {
            String key = row.method() + " " + row.path();
            documented.add(key);
            if (!row.path().startsWith("/v0/")) continue;
            assertThat(RouteTable.of(row.method(), row.path()))
                    .as("RouteTable has " + key)
                    .isPresent();
            assertThat(RouteTable.of(row.method(), row.path()).get().rule().documented())
                    .as("role of " + key)
                    .isEqualTo(row.role());
        }
        Set<String> routed = new TreeSet<>();
        for (BatonServer.Route route : server.server.routes()) {
            if (!route.path().startsWith("/v0/")
                    || !Set.of("GET", "POST", "PUT", "PATCH", "DELETE").contains(route.method())) continue;
            routed.add(route.method() + " " + route.path());
        }
        Set<String> v0Documented = new TreeSet<>(documented);
        v0Documented.removeIf(k -> !k.contains(" /v0/"));
        // Transport A's lease routes are served only by a server with a broker (NatsLeasesContract calls them).
        Set<String> servedHere = new TreeSet<>(v0Documented);
        servedHere.removeIf(k -> k.contains("/leases/"));
        assertThat(servedHere).as("documented /v0 routes = served /v0 routes").isEqualTo(routed);
        assertThat(RouteTable.all().keySet())
                .as("RouteTable rows = documented /v0 rows")
                .containsExactlyInAnyOrderElementsOf(v0Documented);
    }

    @Test
    void everyRoleOnEveryRouteIsAllowedOrRefusedExactlyAsDocumented() throws Exception {
        world();
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        for (Row row : roleTable()) {
            // Weakest callers first, so that an allowed destructive call does not change what the others see.
            for (Caller caller : callers.values()) {
                Expect expected = expected(row, caller);
                TestServer.Response r = request(row, caller);
                Expect actual = classify(r);
                checked++;
                if (actual != expected) {
                    mismatches.add(row.method() + " " + row.path() + " [" + row.role() + "] by " + caller.label()
                            + ": expected " + expected + ", got " + r.status() + " "
                            + r.text().substring(0, Math.min(160, r.text().length())));
                }
            }
        }
        assertThat(mismatches)
                .as("routes whose answer differs from the role table")
                .isEmpty();
        assertThat(checked).isGreaterThan(400);
        noSecretLeaked();
    }

    enum Expect {
        ALLOWED,
        UNAUTHENTICATED,
        FORBIDDEN,
        HIDDEN
    }

    private Expect expected(Row row, Caller caller) {
        String rule = row.role();
        if (rule.equals("public")) return Expect.ALLOWED;
        if (caller.scope() == Scope.NONE) return caller.bearer() == null ? Expect.UNAUTHENTICATED : Expect.FORBIDDEN;
        if (caller.scope() == Scope.ADMIN || rule.equals("any")) return Expect.ALLOWED;
        if (rule.equals("admin")) return Expect.FORBIDDEN;
        Role needed = Role.parse(rule);
        boolean organizationRoute = row.path().contains("{organization}");
        boolean inReach = switch (caller.scope()) {
            case PROJECT -> !organizationRoute;
            case ORGANIZATION -> true;
            default -> false;
        };
        if (!inReach) return Expect.HIDDEN;
        if (caller.role().includes(needed)) return Expect.ALLOWED;
        // A token a caller may not see is as missing as one that does not exist.
        if (row.path().startsWith("/v0/tokens/")) return Expect.HIDDEN;
        return Expect.FORBIDDEN;
    }

    private static Expect classify(TestServer.Response r) {
        if (r.status() == 401) return Expect.UNAUTHENTICATED;
        if (r.status() == 403) return Expect.FORBIDDEN;
        if (r.status() == 404 && r.json() != null && HIDDEN.contains(r.code())) return Expect.HIDDEN;
        return Expect.ALLOWED;
    }

    /** A concrete request for a row: placeholders filled, a body the route accepts, fresh rows where an allowed call consumes one. */
    private TestServer.Response request(Row row, Caller caller) {
        int n = unique.incrementAndGet();
        String path = row.path()
                .replace("{runner}", "r1")
                .replace("{organization}", "acme")
                .replace("{project}", "web")
                .replace("{report}", report)
                .replace("{user}", "member-target")
                .replace("{threshold}", "no-such-threshold")
                .replace("{alert}", "no-such-alert")
                .replace("{group}", "no-such-group")
                .replace("{webhook}", "no-such-webhook")
                .replace("{roll}", UUID.randomUUID().toString());
        if (path.contains("{job}")) {
            boolean mayRun = caller.scope() == Scope.ADMIN
                    || (caller.role() != null
                            && caller.role().includes(Role.SUBMITTER)
                            && (caller.scope() == Scope.PROJECT || caller.scope() == Scope.ORGANIZATION));
            String job = jobByAdmin;
            if (row.path().endsWith("/cancel")) {
                // A fresh job to cancel, submitted by the caller when it may submit (a submitter cancels its own).
                JsonNode run = ok(server.send(
                        "POST",
                        "/v0/run",
                        Map.of("project", "web", "spec", "s1", "image", "v1"),
                        mayRun ? caller.bearer() : server.token));
                job = run.path("job").path("uuid").asText();
            }
            path = path.replace("{job}", job);
        }
        if (path.contains("{token}")) {
            path = path.replace(
                    "{token}",
                    tokenUuid(token(Map.of("user", "victim", "project", "web", "role", "viewer"), server.token)));
        }
        if (row.path().equals("/v0/specs/{spec}") && row.method().equals("DELETE")) {
            ok(server.post(
                    "/v0/specs",
                    Map.of(
                            "name",
                            "doomed-" + n,
                            "slug",
                            "doomed-" + n,
                            "architecture",
                            "x86_64",
                            "cpu",
                            1,
                            "memory",
                            1L << 30,
                            "disk",
                            1L << 30)));
            path = "/v0/specs/doomed-" + n;
        }
        path = path.replace("{spec}", "s1")
                .replace("{schedule}", "nightly"); // an unknown schedule: the admin gets 404, others the refusal
        Object body = switch (row.method() + " " + row.path()) {
            case "POST /v0/runners", "POST /v0/organizations", "POST /v0/users" -> Map.of("name", "new-" + n);
            case "POST /v0/specs" ->
                Map.of("name", "new-" + n, "architecture", "x86_64", "cpu", 1, "memory", 1L << 30, "disk", 1L << 30);
            case "POST /v0/projects" -> Map.of("name", "new-" + n, "organization", "acme");
            case "PATCH /v0/runners/{runner}", "PATCH /v0/specs/{spec}" ->
                Map.of("name", row.path().contains("runner") ? "r1" : "s1");
            case "POST /v0/runners/{runner}/specs" -> Map.of("spec", "s1");
            case "POST /v0/runners/{runner}/drain" -> Map.of("state", "quiet");
            case "POST /v0/runners/{runner}/update" ->
                Map.of("version", "9", "url", "https://example.com/baton", "checksum", "0".repeat(64));
            case "PATCH /v0/organizations/{organization}" -> Map.of("plan", "team");
            case "PUT /v0/organizations/{organization}/members/{user}", "PUT /v0/projects/{project}/members/{user}" ->
                Map.of("role", "viewer");
            case "POST /v0/run" -> Map.of("project", "web", "spec", "s1", "image", "v1");
            case "POST /v0/tokens" -> Map.of("user", "victim", "project", "web", "role", "viewer");
            case "POST /ojs/v1/jobs" -> Map.of("type", "t", "args", List.of());
            default -> null;
        };
        TestServer.Response r = server.send(row.method(), path, body, caller.bearer());
        // The one answer allowed to carry a secret is the one that created it.
        if (row.method().equals("POST") && row.path().equals("/v0/tokens") && r.status() == 201)
            secrets.add(r.json().path("secret").asText());
        else bodiesAfterCreation.add(r.text());
        return r;
    }

    private String tokenUuid(String secret) {
        TestServer.Response me = server.send("GET", "/v0/whoami", null, secret);
        return me.json().path("token").path("uuid").asText();
    }

    /** No secret of a token in any log line, nor in any answer after the one that created it. */
    void noSecretLeaked() {
        assertThat(secrets).isNotEmpty();
        List<String> lines = logs.list.stream()
                .map(e -> e.getFormattedMessage()
                        + (e.getThrowableProxy() == null
                                ? ""
                                : " " + e.getThrowableProxy().getMessage()))
                .toList();
        for (String secret : secrets) {
            assertThat(lines).as("log lines").noneMatch(line -> line.contains(secret));
            assertThat(bodiesAfterCreation).as("answers after creation").noneMatch(body -> body.contains(secret));
        }
        assertThat(String.join("\n", bodiesAfterCreation))
                .doesNotContainPattern(ApiTokenSecret.PREFIX + "[0-9a-f]{64}");
    }

    // ---- tokens: revoked, expired, narrowed ---------------------------------------------------

    @Test
    void aRevokedOrExpiredTokenIsRefusedOnItsNextRequest() {
        world();
        String token = callers.get("project-submitter").bearer();
        assertThat(call("GET", "/v0/projects/web/jobs", null, token).status()).isEqualTo(200);
        String uuid = tokenUuid(token);
        TestServer.Response revoked = call("DELETE", "/v0/tokens/" + uuid, null, server.token);
        assertThat(revoked.status()).isEqualTo(200);
        assertThat(revoked.json().path("status").asText()).isEqualTo("revoked");
        TestServer.Response after = call("GET", "/v0/projects/web/jobs", null, token);
        assertThat(after.status()).isEqualTo(401);
        assertThat(after.code()).isEqualTo("unauthorized");

        String expiring =
                token(Map.of("user", "p-viewer", "project", "web", "role", "viewer", "expires_in", "1h"), server.token);
        assertThat(call("GET", "/v0/projects/web/jobs", null, expiring).status())
                .isEqualTo(200);
        server.clock.advance(Duration.ofMinutes(59));
        assertThat(call("GET", "/v0/projects/web/jobs", null, expiring).status())
                .isEqualTo(200);
        server.clock.advance(Duration.ofMinutes(1));
        assertThat(call("GET", "/v0/projects/web/jobs", null, expiring).status())
                .isEqualTo(401);
        JsonNode listed = findToken(tokenUuid(callers.get("project-viewer").bearer()));
        assertThat(listed.path("last_used").isTextual()).as("last_used is kept").isTrue();
        noSecretLeaked();
    }

    private JsonNode findToken(String uuid) {
        for (JsonNode t : ok(call("GET", "/v0/tokens", null, server.token))) {
            if (t.path("uuid").asText().equals(uuid)) return t;
        }
        throw new AssertionError("token " + uuid + " not listed");
    }

    @Test
    void aTokenCanDoNoMoreThanItsUsersCurrentRole() {
        world();
        // Owner of the project may mint tokens there, but not above the user's own role.
        String owner = callers.get("project-owner").bearer();
        TestServer.Response tooHigh =
                call("POST", "/v0/tokens", Map.of("user", "victim", "project", "web", "role", "submitter"), owner);
        assertThat(tooHigh.status()).isEqualTo(409);
        assertThat(tooHigh.code()).isEqualTo("role_exceeds_membership");
        assertThat(call("POST", "/v0/tokens", Map.of("user", "victim", "project", "secret", "role", "viewer"), owner)
                        .status())
                .isEqualTo(404);
        // Taking the membership away narrows the user's tokens at once.
        String submitter = callers.get("project-submitter").bearer();
        assertThat(call("GET", "/v0/projects/web", null, submitter).status()).isEqualTo(200);
        assertThat(call("PUT", "/v0/projects/web/members/p-submitter", Map.of("role", "viewer"), owner)
                        .status())
                .isEqualTo(200);
        TestServer.Response demoted =
                call("POST", "/v0/run", Map.of("project", "web", "spec", "s1", "image", "v1"), submitter);
        assertThat(demoted.status()).isEqualTo(403);
        assertThat(call("DELETE", "/v0/projects/web/members/p-submitter", null, owner)
                        .status())
                .isEqualTo(204);
        assertThat(call("GET", "/v0/projects/web", null, submitter).status()).isEqualTo(404);
        // Lists show only what the token can see: a viewer its own user's tokens, an owner every token of its scope.
        JsonNode own =
                ok(call("GET", "/v0/tokens", null, callers.get("project-viewer").bearer()));
        assertThat(own.findValuesAsText("name")).isNotEmpty();
        assertThat(own.findPath("user").isMissingNode()).isFalse();
        for (JsonNode t : own) assertThat(t.path("user").path("name").asText()).isEqualTo("p-viewer");
        JsonNode scope = ok(call("GET", "/v0/tokens", null, owner));
        assertThat(scope.findValuesAsText("name")).hasSizeGreaterThan(own.size());
        for (JsonNode t : scope)
            assertThat(t.path("scope").path("slug").asText()).isIn("web", "acme");
        assertThat(ok(call("GET", "/v0/tokens?user=nobody", null, owner))).isEmpty();
        assertThat(call("GET", "/v0/tokens?user=nobody", null, server.token).code())
                .isEqualTo("user_not_found");
        JsonNode projects = ok(
                call("GET", "/v0/projects", null, callers.get("project-viewer").bearer()));
        assertThat(projects.findValuesAsText("slug")).containsExactly("web");
        JsonNode orgs = ok(
                call("GET", "/v0/organizations", null, callers.get("org-viewer").bearer()));
        assertThat(orgs.findValuesAsText("slug")).containsExactly("acme");
        noSecretLeaked();
    }

    @Test
    void aSubmitterCancelsItsOwnJobsAndAMaintainerAnyJob() {
        world();
        String submitter = callers.get("project-submitter").bearer();
        String own = ok(call("POST", "/v0/run", Map.of("project", "web", "spec", "s1", "image", "v1"), submitter))
                .path("job")
                .path("uuid")
                .asText();
        TestServer.Response others = call("POST", "/v0/projects/web/jobs/" + jobByAdmin + "/cancel", null, submitter);
        assertThat(others.status()).isEqualTo(403);
        assertThat(others.code()).isEqualTo("forbidden");
        assertThat(call("POST", "/v0/projects/web/jobs/" + own + "/cancel", null, submitter)
                        .status())
                .isEqualTo(200);
        assertThat(call(
                                "POST",
                                "/v0/projects/web/jobs/" + jobByAdmin + "/cancel",
                                null,
                                callers.get("project-maintainer").bearer())
                        .status())
                .isEqualTo(200);
        // Another project's job is not found, whatever its id.
        String secretJob = ok(server.post("/v0/run", Map.of("project", "secret", "spec", "s1", "image", "v1")))
                .path("job")
                .path("uuid")
                .asText();
        TestServer.Response hidden = call(
                "GET",
                "/v0/projects/secret/jobs/" + secretJob,
                null,
                callers.get("project-owner").bearer());
        assertThat(hidden.status()).isEqualTo(404);
        assertThat(hidden.code()).isEqualTo("project_not_found");
        TestServer.Response missing = call(
                "GET",
                "/v0/projects/no-such/jobs/" + secretJob,
                null,
                callers.get("project-owner").bearer());
        assertThat(missing.json().path("message").asText())
                .isEqualTo(hidden.json().path("message").asText().replace("secret", "no-such"));
    }

    // ---- audit ----------------------------------------------------------------------------

    @Test
    void stateChangesAreAuditedWithWhoWhenWhatAndWhere() {
        world();
        String owner = callers.get("project-owner").bearer();
        String minted = tokenUuid(token(Map.of("user", "victim", "project", "web", "role", "viewer"), owner));
        assertThat(call("DELETE", "/v0/tokens/" + minted, null, owner).status()).isEqualTo(200);
        assertThat(call(
                                "POST",
                                "/v0/projects/web/jobs/" + jobByAdmin + "/cancel",
                                null,
                                callers.get("project-maintainer").bearer())
                        .status())
                .isEqualTo(200);
        assertThat(call("GET", "/v0/projects/web/jobs", null, owner).status()).isEqualTo(200); // reads are not audited

        JsonNode page = ok(call("GET", "/v0/audit?limit=1000", null, server.token));
        List<String> actions = page.path("events").findValuesAsText("action");
        assertThat(actions)
                .contains(
                        "spec.created",
                        "runner.created",
                        "organization.created",
                        "project.created",
                        "user.created",
                        "member.set",
                        "token.created",
                        "token.revoked",
                        "job.canceled");
        JsonNode revoked = ok(call("GET", "/v0/audit?action=token.revoked", null, server.token))
                .path("events")
                .get(0);
        assertThat(revoked.path("actor").asText()).isEqualTo("user:p-owner");
        assertThat(revoked.path("token").asText()).isEqualTo(tokenUuid(owner));
        assertThat(revoked.path("target").asText()).isEqualTo("/v0/tokens/" + minted);
        assertThat(revoked.path("address").asText()).isEqualTo("127.0.0.1");
        assertThat(revoked.path("at").asText()).isEqualTo(TestServer.START.toString());
        JsonNode canceled = ok(call("GET", "/v0/audit?action=job.canceled&actor=user:p-maintainer", null, server.token))
                .path("events");
        assertThat(canceled).hasSize(1);
        assertThat(canceled.get(0).path("detail").asText()).contains(jobByAdmin);
        JsonNode created = ok(call("GET", "/v0/audit?action=runner.created", null, server.token))
                .path("events")
                .get(0);
        assertThat(created.path("actor").asText()).isEqualTo("admin");
        assertThat(created.path("detail").asText()).contains("r1").doesNotContain("baton_runner_");
        assertThat(call("GET", "/v0/audit", null, owner).status()).isEqualTo(403);
        assertThat(call("GET", "/v0/audit?since=yesterday", null, server.token).code())
                .isEqualTo("invalid_parameter");
        // Paging: newest first, next_before continues.
        JsonNode first = ok(call("GET", "/v0/audit?limit=2", null, server.token));
        assertThat(first.path("events")).hasSize(2);
        JsonNode second = ok(call(
                "GET", "/v0/audit?limit=2&before=" + first.path("next_before").asLong(), null, server.token));
        assertThat(second.path("events").get(0).path("id").asLong())
                .isLessThan(first.path("events").get(1).path("id").asLong() + 1);
        noSecretLeaked();
    }

    @Test
    void auditEventsOlderThanTheRetentionAreDeleted() {
        AuditLog log = new AuditLog(server.server.store().access(), server.clock, Duration.ofDays(30));
        log.record(new Principal.Admin(), "test.old", "/old", null, "127.0.0.1");
        server.clock.advance(Duration.ofDays(29));
        log.record(new Principal.Admin(), "test.kept", "/kept", null, "127.0.0.1");
        server.clock.advance(Duration.ofDays(2));
        log.record(new Principal.Admin(), "test.new", "/new", null, "127.0.0.1");
        List<String> actions =
                server.server.store().access().audit(new AuditFilter(null, null, null, null, null, 100)).stream()
                        .map(AuditEvent::action)
                        .toList();
        assertThat(actions).containsExactly("test.new", "test.kept");
    }

    @Test
    void whoamiSaysWhoAndWithWhichScope() {
        world();
        JsonNode me =
                ok(call("GET", "/v0/whoami", null, callers.get("org-maintainer").bearer()));
        assertThat(me.path("actor").asText()).isEqualTo("user:o-maintainer");
        assertThat(me.path("admin").asBoolean()).isFalse();
        assertThat(me.path("token").path("role").asText()).isEqualTo("maintainer");
        assertThat(me.path("token").path("scope").path("slug").asText()).isEqualTo("acme");
        assertThat(me.path("roles").findValuesAsText("role")).containsExactly("maintainer");
        assertThat(ok(call("GET", "/v0/whoami", null, server.token))
                        .path("admin")
                        .asBoolean())
                .isTrue();
    }

    // ---- limits ---------------------------------------------------------------------------

    @Test
    void submissionsPerTokenAreLimitedWithRetryAfter() {
        server.close();
        server = TestServer.assembled(dataDir, config().withTokenSubmissionsPerMinute(2));
        world();
        String submitter = callers.get("project-submitter").bearer();
        Map<String, Object> run = Map.of("project", "web", "spec", "s1", "image", "v1");
        assertThat(call("POST", "/v0/run", run, submitter).status()).isEqualTo(201);
        assertThat(call("POST", "/v0/run", run, submitter).status()).isEqualTo(201);
        HttpRequest third = HttpRequest.newBuilder(URI.create(server.url("/v0/run")))
                .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(run)))
                .header("Authorization", "Bearer " + submitter)
                .build();
        TestServer.Response limited = server.send(third);
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.code()).isEqualTo("rate_limited");
        assertThat(retryAfter(third)).isEqualTo("30");
        // Another token has its own bucket; the admin token has none.
        assertThat(call("POST", "/v0/run", run, callers.get("project-owner").bearer())
                        .status())
                .isEqualTo(201);
        for (int i = 0; i < 3; i++)
            assertThat(call("POST", "/v0/run", run, server.token).status()).isEqualTo(201);
        server.clock.advance(Duration.ofSeconds(30));
        assertThat(call("POST", "/v0/run", run, submitter).status()).isEqualTo(201);
    }

    private String retryAfter(HttpRequest request) {
        try (var http = java.net.http.HttpClient.newHttpClient()) {
            return http.send(request, java.net.http.HttpResponse.BodyHandlers.ofString())
                    .headers()
                    .firstValue("Retry-After")
                    .orElse(null);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // ---- registry -------------------------------------------------------------------------

    @Test
    void registryPullAndPushFollowTheRole() {
        world();
        for (String who : List.of(
                "project-viewer", "project-submitter", "project-maintainer", "org-submitter", "outsider", "admin")) {
            Caller caller = callers.get(who);
            String jwt = registryToken(caller.bearer(), "repository:web:pull,push,delete");
            boolean pull = caller.scope() != Scope.OUTSIDER;
            boolean push = pull && caller.role().includes(Role.SUBMITTER);
            boolean delete = pull && caller.role().includes(Role.MAINTAINER);
            assertThat(registry("GET", "/v2/web/manifests/v1", jwt))
                    .as(who + " pulls")
                    .isEqualTo(pull ? 200 : 401);
            String blob = "blob of " + who;
            String digest = "sha256:" + sha256(blob);
            int pushed = registryPush("/v2/web/blobs/uploads/?digest=" + digest, blob, jwt);
            assertThat(pushed).as(who + " pushes").isEqualTo(push ? 201 : 401);
            if (push)
                assertThat(registry("DELETE", "/v2/web/blobs/" + digest, jwt))
                        .as(who + " deletes")
                        .isEqualTo(delete ? 202 : 401);
            // The user token itself as a Basic password on the registry, without the token flow: the same rights.
            assertThat(registry("GET", "/v2/web/manifests/v1", null, caller.bearer()))
                    .as(who + " pulls with basic")
                    .isEqualTo(pull ? 200 : 401);
        }
        assertThat(registry(
                        "GET",
                        "/v2/secret/manifests/v1",
                        registryToken(callers.get("project-owner").bearer(), "repository:secret:pull")))
                .isEqualTo(401);
        noSecretLeaked();
    }

    private String registryToken(String password, String scope) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url(
                        "/v2/token?service=baton&scope=" + URLEncoder.encode(scope, StandardCharsets.UTF_8))))
                .header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(("ci:" + password).getBytes(StandardCharsets.UTF_8)))
                .build();
        TestServer.Response r = server.send(request);
        bodiesAfterCreation.add(r.text());
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json().path("token").asText();
    }

    private int registry(String method, String path, String jwt) {
        return registry(method, path, jwt, null);
    }

    private int registry(String method, String path, String jwt, String basicPassword) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url(path)))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header("Accept", "application/vnd.oci.image.manifest.v1+json");
        if (jwt != null) b.header("Authorization", "Bearer " + jwt);
        if (basicPassword != null) {
            b.header(
                    "Authorization",
                    "Basic "
                            + Base64.getEncoder()
                                    .encodeToString(("ci:" + basicPassword).getBytes(StandardCharsets.UTF_8)));
        }
        TestServer.Response r = server.send(b.build());
        bodiesAfterCreation.add(r.text());
        return r.status();
    }

    private int registryPush(String path, String content, String jwt) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url(path)))
                .POST(HttpRequest.BodyPublishers.ofString(content))
                .header("Content-Type", "application/octet-stream")
                .header("Authorization", "Bearer " + jwt)
                .build();
        TestServer.Response r = server.send(request);
        bodiesAfterCreation.add(r.text());
        return r.status();
    }

    private static String sha256(String text) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                            .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---- OJS ------------------------------------------------------------------------------

    @Test
    void theOjsBindingTakesTheAdminTokenOnlyAndSaysSoInItsShape() {
        world();
        TestServer.Response user =
                call("GET", "/ojs/v1/queues", null, callers.get("org-owner").bearer());
        assertThat(user.status()).isEqualTo(403);
        assertThat(user.text()).contains("\"code\":\"forbidden\"").contains("admin token");
        assertThat(call("GET", "/ojs/v1/queues", null, server.token).status()).isEqualTo(200);
        assertThat(call("GET", "/ojs/v1/queues", null, "baton_token_" + "0".repeat(64))
                        .status())
                .isEqualTo(401);
    }
}
