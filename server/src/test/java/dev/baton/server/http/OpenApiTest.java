package dev.baton.server.http;

import dev.baton.protocol.message.Wire;
import dev.baton.server.ServerAssembly;
import dev.baton.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.server.BatonServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The served OpenAPI document and the registered routes describe the same API, both ways. */
class OpenApiTest {
    private static final Set<String> HTTP_METHODS = Set.of("get", "post", "put", "patch", "delete");

    @TempDir
    Path dir;

    /**
     * Checked on the assembled server, so the runner channel's admin routes and metrics count too.
     * The OCI registry under /v2 follows the distribution specification and is documented in
     * docs/registry.md; the channel's WebSocket in docs/protocol.md.
     */
    @Test
    void everyRouteIsDocumentedAndEveryDocumentedRouteExists() throws Exception {
        ServerConfig config = TestServer.config(dir);
        try (BatonServer server = ServerAssembly.builder(config, new MutableClock(TestServer.START)).start();
                HttpClient http = HttpClient.newHttpClient()) {
            var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v0/openapi.json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode doc = Wire.mapper().readTree(r.body());
            assertThat(doc.path("openapi").asText()).startsWith("3.");

            List<BatonServer.Route> routes = server.routes().stream()
                    .filter(route -> HTTP_METHODS.contains(route.method().toLowerCase(Locale.ROOT)))
                    .filter(route -> !route.path().startsWith("/v2"))
                    .toList();
            List<String> missing = new ArrayList<>();
            for (BatonServer.Route route : routes) {
                if (doc.path("paths").path(route.path()).path(route.method().toLowerCase(Locale.ROOT)).isMissingNode()) {
                    missing.add(route.method() + " " + route.path());
                }
            }
            assertThat(missing).as("routes missing from openapi.json").isEmpty();

            List<String> stale = new ArrayList<>();
            doc.path("paths").fields().forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(method -> {
                if (HTTP_METHODS.contains(method) && !routes.contains(new BatonServer.Route(method.toUpperCase(Locale.ROOT), p.getKey()))) {
                    stale.add(method + " " + p.getKey());
                }
            }));
            assertThat(stale).as("documented operations with no route").isEmpty();
            assertThat(routes).hasSizeGreaterThan(20);
        }
    }

    @Test
    void everySchemaReferenceResolves() {
        try (TestServer s = new TestServer(dir)) {
            JsonNode doc = s.send("GET", "/v0/openapi.json", null, null).json();
            List<String> refs = new ArrayList<>();
            collectRefs(doc, refs);
            assertThat(refs).isNotEmpty();
            for (String ref : refs) {
                assertThat(doc.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
            }
        }
    }

    private static void collectRefs(JsonNode node, List<String> refs) {
        if (node.isObject()) {
            node.fields().forEachRemaining(e -> {
                if (e.getKey().equals("$ref")) refs.add(e.getValue().asText());
                else collectRefs(e.getValue(), refs);
            });
        } else if (node.isArray()) {
            node.forEach(n -> collectRefs(n, refs));
        }
    }
}
