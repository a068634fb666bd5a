package dev.baton.server.api;

import dev.baton.server.http.RouteModule;
import io.javalin.config.JavalinConfig;
import java.util.List;

/** The whole {@code /v0} management API as one module: every route table in one place. */
public final class ManagementApi implements RouteModule {
    private final List<RouteModule> parts;

    public ManagementApi(ApiContext api) {
        this.parts = List.of(
                new RunnerRoutes(api),
                new SpecRoutes(api),
                new OrganizationRoutes(api),
                new RunRoutes(api),
                new JobRoutes(api),
                new AccessRoutes(api),
                new MemberRoutes(api),
                new OpenApiRoutes());
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        parts.forEach(p -> p.addRoutes(config));
    }
}
