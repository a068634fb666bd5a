package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.OpenApiRoutes;
import dev.baton.core.config.ServerConfig;
import dev.baton.protocol.message.Wire;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import dev.baton.server.testing.MutableClock;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

    /** Checked on the assembled server, so the runner channel's admin routes and metrics count too. */
    @Test
    void everyRouteIsDocumentedAndEveryDocumentedRouteExists() throws Exception {
        try (BatonServer server = ServerAssembly.builder(TestServer.config(dir), new MutableClock(TestServer.START))
                        .start();
                HttpClient http = HttpClient.newHttpClient()) {
            var r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v0/openapi.json"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode doc = Wire.mapper().readTree(r.body());
            assertThat(doc.path("openapi").asText()).startsWith("3.");
            List<BatonServer.Route> routes = apiRoutes(server);
            assertThat(routes).hasSizeGreaterThan(20);
            assertThat(missingFromDocument(routes, doc))
                    .as("routes missing from openapi.json")
                    .isEmpty();
            assertThat(documentedButNotRouted(routes, doc))
                    .as("documented operations with no route")
                    .isEmpty();
        }
    }

    @Test
    void theCheckCatchesAnUndocumentedRoute() throws Exception {
        ServerConfig config = ServerConfig.defaults(dir).withListen("127.0.0.1", 0);
        try (BatonServer server = BatonServer.builder(config)
                .module(w -> cfg -> cfg.routes.get("/v0/undocumented/{thing}", ctx -> ctx.result("x")))
                .start()) {
            assertThat(missingFromDocument(apiRoutes(server), document()))
                    .containsExactly("GET /v0/undocumented/{thing}");
        }
    }

    @Test
    void everySchemaReferenceResolves() throws Exception {
        JsonNode doc = document();
        List<String> refs = new ArrayList<>();
        collectRefs(doc, refs);
        assertThat(refs).isNotEmpty();
        for (String ref : refs) {
            assertThat(doc.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
        }
    }

    private static JsonNode document() throws Exception {
        try (InputStream in = OpenApiRoutes.class.getResourceAsStream(OpenApiRoutes.RESOURCE)) {
            return Wire.mapper().readTree(in);
        }
    }

    private static List<BatonServer.Route> apiRoutes(BatonServer server) {
        return server.routes().stream()
                .filter(route -> HTTP_METHODS.contains(route.method().toLowerCase(Locale.ROOT)))
                .filter(route -> documented(route.path()))
                .toList();
    }

    private static List<String> missingFromDocument(List<BatonServer.Route> routes, JsonNode doc) {
        List<String> missing = new ArrayList<>();
        for (BatonServer.Route route : routes) {
            if (doc.path("paths")
                    .path(route.path())
                    .path(route.method().toLowerCase(Locale.ROOT))
                    .isMissingNode()) {
                missing.add(route.method() + " " + route.path());
            }
        }
        return missing;
    }

    /**
     * Transport A's lease routes exist only on a server with {@code nats_url}, which this test's
     * server has not: they are checked the other way round by {@code NatsLeasesJobViewTest}, on a
     * server with transport A on.
     */
    static boolean onlyWithTransportA(String path) {
        return path.startsWith("/v0/runners/{runner}/leases/");
    }

    private static List<String> documentedButNotRouted(List<BatonServer.Route> routes, JsonNode doc) {
        List<String> stale = new ArrayList<>();
        doc.path("paths")
                .fields()
                .forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(method -> {
                    if (onlyWithTransportA(p.getKey())) return;
                    if (HTTP_METHODS.contains(method)
                            && !routes.contains(new BatonServer.Route(method.toUpperCase(Locale.ROOT), p.getKey()))) {
                        stale.add(method + " " + p.getKey());
                    }
                }));
        return stale;
    }

    /**
     * The document describes the REST API (/v0), health and metrics; the OCI registry (/v2)
     * follows the OCI distribution spec (docs/registry.md) and the runner channel's WebSocket is
     * in docs/protocol.md, and the Open Job Spec binding (/ojs) follows the OJS HTTP binding
     * (docs/ojs.md), so they are not in it.
     */
    private static boolean documented(String path) {
        return path.startsWith("/v0/") || path.equals("/health") || path.equals("/ready") || path.equals("/metrics");
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
