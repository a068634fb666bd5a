package dev.baton.web.http;

import dev.baton.store.Store;
import io.javalin.config.JavalinConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code GET /health}: the process answers. {@code GET /ready}: it can also reach its database
 * (503 otherwise), for load balancers in front of several server nodes, and says how the parts
 * that report themselves ({@link ReadinessReport}: the broker) are. Neither needs a token.
 */
public final class HealthRoutes implements RouteModule {
    private final Store store;
    private final List<ReadinessReport> reports = new CopyOnWriteArrayList<>();

    public HealthRoutes(Store store) {
        this.store = store;
    }

    /** Adds a part's state to every {@code /ready} answer. */
    public void report(ReadinessReport report) {
        reports.add(report);
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/health", ctx -> Json.write(ctx, 200, Map.of("status", "ok")));
        config.routes.get("/ready", ctx -> {
            try {
                store.organizations().findOrganization(-1L);
            } catch (RuntimeException e) {
                throw new ApiException(503, "not_ready", "the database is not reachable");
            }
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("status", "ready");
            for (ReadinessReport r : reports) answer.put(r.readinessName(), r.readiness());
            Json.write(ctx, 200, answer);
        });
    }
}
