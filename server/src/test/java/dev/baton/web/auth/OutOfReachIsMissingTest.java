package dev.baton.web.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import dev.baton.web.http.TestServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project or organization out of a token's reach is answered exactly as a missing one, on every
 * route, whatever else is wrong with the request (docs/api.md, "Out of reach looks like missing").
 * The matrix is generated from the served OpenAPI document: every operation with a
 * {@code {project}} or {@code {organization}} path parameter or a {@code project} or
 * {@code organization} field in its body (nested ones too) is sent, by several tokens, once
 * naming a project or organization that exists out of the token's reach and once one that does
 * not exist (by slug and by UUID), with a body and query that are otherwise plausible and with
 * ones that are also invalid. The two answers must be the same bytes once the echoed name is
 * swapped. A new route is covered without touching this test.
 */
class OutOfReachIsMissingTest {
    private static final Set<String> SCOPES = Set.of("project", "organization");
    private static final Set<String> METHODS = Set.of("get", "post", "put", "patch", "delete");
    private static final String MISSING_UUID = "5b0e5a54-2c5e-4a8f-9d41-6f2b8e1c7a93";

    @TempDir
    Path dataDir;

    TestServer server;
    JsonNode document;
    /** Out of reach → missing, per scope kind and reference kind (slug, UUID). */
    final Map<String, Map<String, String>> probes = new LinkedHashMap<>();

    final Map<String, String> tokens = new LinkedHashMap<>();

    @BeforeEach
    void start() {
        server = new TestServer(dataDir);
        document = server.send("GET", "/v0/openapi.json", null, null).json();
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
        ok(server.post("/v0/organizations", Map.of("name", "oa", "slug", "oa")));
        ok(server.post("/v0/projects", Map.of("name", "pa", "slug", "pa", "organization", "oa")));
        JsonNode ob = ok(server.post("/v0/organizations", Map.of("name", "ob", "slug", "ob")));
        JsonNode pb = ok(server.post("/v0/projects", Map.of("name", "pb", "slug", "pb", "organization", "ob")));
        probes.put("project", Map.of("pb", "nope-zz", pb.path("uuid").asText(), MISSING_UUID));
        probes.put("organization", Map.of("ob", "nope-zz", ob.path("uuid").asText(), MISSING_UUID));
        tokens.put("project submitter", token("ps", "projects/pa", "project", "pa", "submitter"));
        tokens.put("project owner", token("po", "projects/pa", "project", "pa", "owner"));
        tokens.put("organization owner", token("oo", "organizations/oa", "organization", "oa", "owner"));
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    private String token(String user, String member, String scope, String ref, String role) {
        ok(server.post("/v0/users", Map.of("name", user)));
        assertThat(server.send("PUT", "/v0/" + member + "/members/" + user, Map.of("role", role), server.token)
                        .status())
                .isEqualTo(200);
        return ok(server.post("/v0/tokens", Map.of("user", user, scope, ref, "role", role)))
                .path("secret")
                .asText();
    }

    private static JsonNode ok(TestServer.Response r) {
        assertThat(r.status()).as(r.text()).isBetween(200, 299);
        return r.json();
    }

    /** One operation of the document and where it names a project or organization: a path parameter or a body field (its JSON path). */
    record Case(String method, String path, JsonNode operation, String scope, List<String> bodyPath) {
        String label() {
            return method.toUpperCase() + " " + path + (bodyPath == null ? "" : " body " + String.join(".", bodyPath));
        }
    }

    @Test
    void aProjectOrOrganizationOutOfReachIsAnsweredExactlyAsAMissingOneOnEveryRoute() {
        List<Case> cases = cases();
        Set<String> covered = new TreeSet<>();
        for (Case c : cases) covered.add(c.label());
        // The discovery itself must work: the routes of the report are among those found.
        assertThat(covered)
                .contains(
                        "GET /v0/projects/{project}/jobs",
                        "PUT /v0/projects/{project}/members/{user}",
                        "PUT /v0/organizations/{organization}/members/{user}",
                        "POST /v0/run body project",
                        "POST /v0/tokens body project",
                        "POST /v0/tokens body organization",
                        "POST /v0/schedules body run.project",
                        "GET /v0/projects/{project}/jobs/{job}/logs");

        List<String> differences = new ArrayList<>();
        List<String> notRefusedFirst = new ArrayList<>();
        Set<String> invalidForAnAdmin = new TreeSet<>();
        int compared = 0;
        for (Case c : cases) {
            for (boolean invalid : List.of(false, true)) {
                for (Map.Entry<String, String> probe : probes.get(c.scope()).entrySet()) {
                    String outOfReach = probe.getKey();
                    String missing = probe.getValue();
                    for (Map.Entry<String, String> token : tokens.entrySet()) {
                        TestServer.Response hidden = send(c, outOfReach, invalid, token.getValue());
                        TestServer.Response absent = send(c, missing, invalid, token.getValue());
                        compared++;
                        String what = c.label() + (invalid ? " (invalid request)" : "") + " by " + token.getKey()
                                + ", '" + outOfReach + "' vs '" + missing + "'";
                        if (hidden.status() != absent.status()
                                || !hidden.text().replace(outOfReach, missing).equals(absent.text())) {
                            differences.add(what + ": " + hidden.status() + " " + hidden.text() + " <> "
                                    + absent.status() + " " + absent.text());
                        }
                        // Access is decided first: refused (404 as if missing; 403 on an admin-only route), never a 400
                        // about the rest.
                        if (hidden.status() != 404 && hidden.status() != 403)
                            notRefusedFirst.add(what + ": " + hidden.status() + " " + hidden.text());
                    }
                    // The same request by the admin, who reaches the project: the "invalid" variant is really invalid.
                    if (invalid
                            && server.send(
                                                    c.method().toUpperCase(),
                                                    path(c, outOfReach, true),
                                                    body(c, outOfReach, true),
                                                    server.token)
                                            .status()
                                    == 400) {
                        invalidForAnAdmin.add(c.label());
                    }
                }
            }
        }
        assertThat(differences)
                .as("answers that tell an existing project or organization out of reach from a missing one")
                .isEmpty();
        assertThat(notRefusedFirst)
                .as("requests whose other faults were looked at before access")
                .isEmpty();
        assertThat(invalidForAnAdmin)
                .contains(
                        "GET /v0/projects/{project}/jobs",
                        "PUT /v0/projects/{project}/members/{user}",
                        "PUT /v0/organizations/{organization}/members/{user}",
                        "POST /v0/run body project",
                        "POST /v0/tokens body project");
        assertThat(compared).isGreaterThan(200);
    }

    private TestServer.Response send(Case c, String ref, boolean invalid, String bearer) {
        return server.send(c.method().toUpperCase(), path(c, ref, invalid), body(c, ref, invalid), bearer);
    }

    // ---- the cases, from the document ------------------------------------------------------

    private List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths =
                        document.path("paths").fields();
                paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            if (!path.getKey().startsWith("/v0/")) continue;
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                if (!METHODS.contains(op.getKey())) continue;
                for (String scope : SCOPES) {
                    if (path.getKey().contains("{" + scope + "}"))
                        cases.add(new Case(op.getKey(), path.getKey(), op.getValue(), scope, null));
                }
                JsonNode schema = op.getValue()
                        .path("requestBody")
                        .path("content")
                        .path("application/json")
                        .path("schema");
                if (!schema.isMissingNode()
                        && SCOPES.stream().noneMatch(s -> path.getKey().contains("{" + s + "}"))) {
                    for (List<String> field : scopeFields(schema, new ArrayList<>(), 0)) {
                        cases.add(new Case(op.getKey(), path.getKey(), op.getValue(), field.getLast(), field));
                    }
                }
            }
        }
        return cases;
    }

    /** The JSON paths of every project or organization field in a body schema, nested objects included. */
    private List<List<String>> scopeFields(JsonNode schema, List<String> prefix, int depth) {
        List<List<String>> found = new ArrayList<>();
        if (depth > 3) return found;
        for (Map.Entry<String, JsonNode> p : properties(schema).entrySet()) {
            List<String> here = new ArrayList<>(prefix);
            here.add(p.getKey());
            JsonNode type = resolve(p.getValue());
            if (SCOPES.contains(p.getKey()) && type.path("type").asText().equals("string")) found.add(here);
            else if (!properties(type).isEmpty()) found.addAll(scopeFields(type, here, depth + 1));
        }
        return found;
    }

    private JsonNode resolve(JsonNode schema) {
        if (schema.has("$ref"))
            return resolve(document.at(schema.path("$ref").asText().substring(1)));
        if (schema.has("allOf") && schema.path("allOf").size() == 1)
            return resolve(schema.path("allOf").get(0));
        return schema;
    }

    private Map<String, JsonNode> properties(JsonNode schema) {
        Map<String, JsonNode> props = new LinkedHashMap<>();
        JsonNode resolved = resolve(schema);
        resolved.path("properties").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue()));
        return props;
    }

    // ---- requests ---------------------------------------------------------------------------

    /**
     * The path with the scope parameter set to {@code ref}, the other parameters to resources that
     * do not exist, and, when {@code invalid}, every typed query parameter given a value it refuses.
     */
    private String path(Case c, String ref, boolean invalid) {
        String path = c.path();
        StringBuilder query = new StringBuilder();
        for (JsonNode param : c.operation().path("parameters")) {
            String name = param.path("name").asText();
            JsonNode type = resolve(param.path("schema"));
            switch (param.path("in").asText()) {
                case "path" ->
                    path = path.replace(
                            "{" + name + "}",
                            name.equals(c.scope()) && c.bodyPath() == null ? encode(ref) : otherResource(name));
                case "query" -> {
                    String bad = invalid ? refusedValue(name, type) : null;
                    if (bad != null)
                        query.append(query.isEmpty() ? "?" : "&")
                                .append(name)
                                .append('=')
                                .append(encode(bad));
                }
                default -> {}
            }
        }
        return path + query;
    }

    private static String otherResource(String name) {
        return switch (name) {
            case "job", "report", "token" -> "0190f6a0-0000-7000-8000-000000000000";
            case "user" -> "ps"; // an existing user: only the scope is missing or out of reach
            default -> "nope-" + name;
        };
    }

    /** A value the schema refuses: one below the minimum, outside the enum, not a boolean; null for free text. */
    private static String refusedValue(String name, JsonNode type) {
        if (type.has("enum")) return "not-a-" + name;
        return switch (type.path("type").asText()) {
            case "integer" ->
                String.valueOf(type.has("minimum") ? type.path("minimum").asLong() - 1 : -1);
            case "boolean" -> "maybe";
            default -> null;
        };
    }

    private Object body(Case c, String ref, boolean invalid) {
        JsonNode schema = c.operation()
                .path("requestBody")
                .path("content")
                .path("application/json")
                .path("schema");
        if (schema.isMissingNode()) return null;
        ObjectNode body = fill(schema, invalid);
        if (c.bodyPath() == null) return Wire.encode(body);
        ObjectNode at = body;
        JsonNode atSchema = schema;
        for (String key : c.bodyPath().subList(0, c.bodyPath().size() - 1)) {
            atSchema = properties(atSchema).get(key);
            ObjectNode inner = fill(atSchema, invalid);
            at.set(key, inner);
            at = inner;
        }
        at.put(c.bodyPath().getLast(), ref);
        return Wire.encode(body);
    }

    /**
     * An object of {@code schema} without its scope fields: plausible values for the required
     * properties, or, when {@code invalid}, refused ones for them and for every typed property.
     */
    private ObjectNode fill(JsonNode schema, boolean invalid) {
        ObjectNode object = Wire.mapper().createObjectNode();
        Set<String> required = new TreeSet<>();
        resolve(schema).path("required").forEach(r -> required.add(r.asText()));
        for (Map.Entry<String, JsonNode> p : properties(schema).entrySet()) {
            String name = p.getKey();
            if (SCOPES.contains(name)) continue;
            JsonNode type = resolve(p.getValue());
            String kind = type.path("type").asText();
            if (invalid) {
                String bad = refusedValue(name, type);
                if (bad != null && kind.equals("integer")) object.put(name, Long.parseLong(bad));
                else if (bad != null && !kind.equals("boolean")) object.put(name, bad);
                else if (required.contains(name) && kind.equals("string")) object.put(name, "");
            } else if (required.contains(name)) {
                if (type.has("enum")) object.set(name, type.path("enum").get(0));
                else if (kind.equals("integer"))
                    object.put(name, type.has("minimum") ? type.path("minimum").asLong() : 1);
                else if (kind.equals("string")) object.put(name, "x");
                else if (kind.equals("object")) object.set(name, fill(type, false));
            }
        }
        return object;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
