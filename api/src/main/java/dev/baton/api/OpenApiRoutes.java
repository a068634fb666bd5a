package dev.baton.api;

import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Serves the hand-written OpenAPI 3 document of the API at {@code GET /v0/openapi.json} (no
 * token: it describes, it does not reveal). A test fails when a route is missing from it.
 */
public final class OpenApiRoutes implements RouteModule {
    public static final String RESOURCE = "/dev/baton/api/openapi.json";
    private final byte[] document;

    public OpenApiRoutes() {
        try (InputStream in = OpenApiRoutes.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("missing resource " + RESOURCE);
            this.document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get(
                "/v0/openapi.json", ctx -> ctx.contentType("application/json").result(document));
    }
}
