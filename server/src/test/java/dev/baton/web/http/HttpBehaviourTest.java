package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Cross-cutting HTTP behaviour over real sockets: auth, error shape, 404/405, body bounds, health. */
class HttpBehaviourTest {
    @TempDir
    Path dir;

    TestServer s;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
    }

    @AfterEach
    void stop() {
        s.close();
    }

    @Test
    void healthAndReadinessNeedNoToken() {
        var health = s.send("GET", "/health", null, null);
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().path("status").asText()).isEqualTo("ok");
        var ready = s.send("GET", "/ready", null, null);
        assertThat(ready.status()).isEqualTo(200);
        assertThat(ready.json().path("status").asText()).isEqualTo("ready");
    }

    @Test
    void managementWithoutTokenIs401() {
        var r = s.send("GET", "/v0/runners", null, null);
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.code()).isEqualTo("unauthorized");
        assertThat(r.json().path("message").asText()).contains("Authorization");
    }

    @Test
    void wrongTokenIs401AndNothingIsWritten() {
        var r = s.send("POST", "/v0/runners", Map.of("name", "x"), "baton_admin_" + "0".repeat(64));
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.code()).isEqualTo("unauthorized");
        assertThat(s.get("/v0/runners").json()).isEmpty();
    }

    @Test
    void otherSchemesAreNotAccepted() {
        var request = HttpRequest.newBuilder(URI.create(s.url("/v0/runners")))
                .header("Authorization", "Basic " + s.token)
                .GET()
                .build();
        assertThat(s.send(request).status()).isEqualTo(401);
    }

    @Test
    void runnerKeyOnManagementIs403() {
        var created = s.post("/v0/runners", Map.of("name", "r1"));
        String key = created.json().path("key").asText();
        var r = s.send("GET", "/v0/runners", null, key);
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.code()).isEqualTo("forbidden");
    }

    @Test
    void adminTokenFileIsPrivateAndStableAcrossRestarts() throws Exception {
        var perms = java.nio.file.Files.getPosixFilePermissions(dir.resolve("admin-token"));
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(perms)).isEqualTo("rw-------");
        assertThat(s.token).matches("baton_admin_[0-9a-f]{64}");
        s.close();
        s = new TestServer(dir);
        assertThat(s.get("/v0/runners").status()).isEqualTo(200);
    }

    @Test
    void unknownRouteIs404InTheErrorShape() {
        var r = s.get("/v0/nothing-here");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.code()).isEqualTo("route_not_found");
        assertThat(r.json().has("message")).isTrue();
    }

    @Test
    void wrongMethodIs405InTheErrorShape() {
        var r = s.send("PUT", "/v0/runners", Map.of(), s.token);
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.code()).isEqualTo("method_not_allowed");
    }

    @Test
    void malformedJsonIs400() {
        var r = s.post("/v0/runners", "{\"name\": ");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.code()).isEqualTo("invalid_json");
        var notObject = s.post("/v0/runners", "[1,2]");
        assertThat(notObject.status()).isEqualTo(400);
        assertThat(notObject.code()).isEqualTo("invalid_json");
        var empty = s.post("/v0/runners", "");
        assertThat(empty.code()).isEqualTo("invalid_json");
        var trailing = s.post("/v0/runners", "{\"name\":\"a\"} {}");
        assertThat(trailing.code()).isEqualTo("invalid_json");
        assertThat(s.get("/v0/runners").json()).isEmpty();
    }

    @Test
    void unknownFieldsAndWrongTypesAre400WithTheField() {
        var unknown = s.post("/v0/runners", Map.of("name", "a", "nmae", "b"));
        assertThat(unknown.code()).isEqualTo("unknown_field");
        assertThat(unknown.json().path("field").asText()).isEqualTo("nmae");
        var wrongType =
                s.post("/v0/specs", Map.of("name", "s", "architecture", "x86_64", "cpu", "2", "memory", 1, "disk", 1));
        assertThat(wrongType.status()).isEqualTo(400);
        assertThat(wrongType.code()).isEqualTo("invalid_json");
        assertThat(wrongType.json().path("field").asText()).isEqualTo("cpu");
        var fraction =
                s.post("/v0/specs", Map.of("name", "s", "architecture", "x86_64", "cpu", 1.5, "memory", 1, "disk", 1));
        assertThat(fraction.status()).isEqualTo(400);
        assertThat(fraction.json().path("field").asText()).isEqualTo("cpu");
    }

    @Test
    void overlongUtf8AndLoneSurrogatesAre400AndNothingIsWritten() {
        // C0 AF is an overlong '/', ED A0 80 an encoded surrogate: both invalid UTF-8.
        for (byte[] bad : new byte[][] {
            {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', 'a', (byte) 0xC0, (byte) 0xAF, '"', '}'},
            {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', 'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', '}'}
        }) {
            var request = HttpRequest.newBuilder(URI.create(s.url("/v0/runners")))
                    .header("Authorization", "Bearer " + s.token)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(bad))
                    .build();
            var r = s.send(request);
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.code()).isEqualTo("invalid_json");
        }
        var escaped = s.post("/v0/runners", "{\"name\":\"a\\ud800b\"}");
        assertThat(escaped.status()).isEqualTo(400);
        assertThat(escaped.code()).isEqualTo("invalid_json");
        var lowFirst = s.post("/v0/runners", "{\"name\":\"a\\udc00\\ud800\"}");
        assertThat(lowFirst.code()).isEqualTo("invalid_json");
        assertThat(s.get("/v0/runners").json()).isEmpty();
        var pair = s.post("/v0/runners", "{\"name\":\"a\\ud83d\\ude00\"}");
        assertThat(pair.status()).isEqualTo(201);
    }

    @Test
    void uriTooLongIs414InTheErrorShape() {
        var r = s.get("/v0/runners?x=" + "a".repeat(64 * 1024));
        assertThat(r.status()).isEqualTo(414);
        assertThat(r.code()).isEqualTo("uri_too_long");
        assertThat(r.json().path("message").asText()).isNotBlank();
    }

    @Test
    void headersTooLargeAre431InTheErrorShape() {
        var request = HttpRequest.newBuilder(URI.create(s.url("/v0/runners")))
                .header("Authorization", "Bearer " + s.token)
                .header("X-Padding", "a".repeat(64 * 1024))
                .GET()
                .build();
        var r = s.send(request);
        assertThat(r.status()).isEqualTo(431);
        assertThat(r.code()).isEqualTo("headers_too_large");
    }

    @Test
    void dataDirectoryAndItsFilesArePrivate() throws Exception {
        assertThat(mode(dir)).isEqualTo("rwx------");
        try (var files = java.nio.file.Files.walk(dir)) {
            for (Path p : files.toList()) {
                if (java.nio.file.Files.isSymbolicLink(p)) continue;
                String expected = java.nio.file.Files.isDirectory(p) ? "rwx------" : "rw-------";
                assertThat(mode(p)).as(p.toString()).isEqualTo(expected);
            }
        }
    }

    @Test
    void anExistingOpenDataDirectoryIsTightenedAtStart() throws Exception {
        s.close();
        java.nio.file.Files.setPosixFilePermissions(
                dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        s = new TestServer(dir);
        assertThat(mode(dir)).isEqualTo("rwx------");
    }

    private static String mode(Path p) throws java.io.IOException {
        return java.nio.file.attribute.PosixFilePermissions.toString(
                java.nio.file.Files.getPosixFilePermissions(p, java.nio.file.LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void oversizedBodyIs413AndNothingIsWritten() {
        String big = "{\"name\":\"" + "a".repeat((int) TestServer.MAX_BODY) + "\"}";
        var r = s.post("/v0/runners", big);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.code()).isEqualTo("payload_too_large");
        assertThat(s.get("/v0/runners").json()).isEmpty();
    }

    @Test
    void oversizedBodyIs413EvenWhereTheRouteTakesNoBody() {
        String key =
                s.post("/v0/runners", Map.of("name", "r1")).json().path("key").asText();
        var r = s.send("POST", "/v0/runners/r1/token", "x".repeat((int) TestServer.MAX_BODY + 1), s.token);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.code()).isEqualTo("payload_too_large");
        assertThat(new dev.baton.web.auth.RunnerAuthenticator(s.server.store()).authenticate("r1", "Bearer " + key))
                .as("key not rotated")
                .isPresent();
    }

    @Test
    void oversizedChunkedBodyWithoutContentLengthIs413() {
        byte[] big = ("{\"name\":\"" + "a".repeat((int) TestServer.MAX_BODY) + "\"}").getBytes();
        var request = HttpRequest.newBuilder(URI.create(s.url("/v0/runners")))
                .header("Authorization", "Bearer " + s.token)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big)))
                .build();
        var r = s.send(request);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.code()).isEqualTo("payload_too_large");
        assertThat(s.get("/v0/runners").json()).isEmpty();
    }

    @Test
    void bodyJustUnderTheBoundIsAccepted() {
        // a valid body near the bound is not refused for its size
        String name = "a".repeat(200);
        String padding = " ".repeat((int) TestServer.MAX_BODY - 300);
        var r = s.post("/v0/runners", "{\"name\":\"" + name + "\"" + padding + "}");
        assertThat(r.status()).isEqualTo(201);
    }

    @Test
    void registeredRoutesIncludeTheApi() {
        assertThat(s.server.routes()).contains(new dev.baton.server.BatonServer.Route("POST", "/v0/run"));
        assertThat(s.server.publicUrl()).isEqualTo("http://127.0.0.1:" + s.server.port());
        assertThat(s.server.banner())
                .contains("http://127.0.0.1:" + s.server.port())
                .contains("admin-token")
                .contains("curl");
    }
}
