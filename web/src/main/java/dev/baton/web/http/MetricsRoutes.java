package dev.baton.web.http;

import dev.baton.core.metrics.BatonMetrics;
import io.javalin.config.JavalinConfig;

/** {@code GET /metrics}: Prometheus text exposition of {@link BatonMetrics}. */
public final class MetricsRoutes implements RouteModule {
    private final BatonMetrics metrics;

    public MetricsRoutes(BatonMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get(
                "/metrics",
                ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                        .result(metrics.scrape()));
    }
}
