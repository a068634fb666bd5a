package dev.baton.server.http;

import dev.baton.server.store.Store;
import io.javalin.config.JavalinConfig;
import java.util.Map;

/**
 * {@code GET /health}: the process answers. {@code GET /ready}: it can also reach its database
 * (503 otherwise), for load balancers in front of several server nodes. Neither needs a token.
 */
public final class HealthRoutes implements RouteModule {
    private final Store store;

    public HealthRoutes(Store store) {
        this.store = store;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/health", ctx -> Json.write(ctx, 200, Map.of("status", "ok")));
        config.routes.get("/ready", ctx -> {
            try {
                store.findOrganization(-1L);
            } catch (RuntimeException e) {
                throw new ApiException(503, "not_ready", "the database is not reachable");
            }
            Json.write(ctx, 200, Map.of("status", "ready"));
        });
    }
}
