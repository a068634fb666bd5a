package dev.baton.api;

import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import java.util.List;

/** The whole {@code /v0} management API as one module: every route table in one place. */
public final class ManagementApi implements RouteModule, AutoCloseable {
    private final List<RouteModule> parts;
    private final ScheduleRoutes schedules;

    public ManagementApi(ApiContext api) {
        RunRoutes runs = new RunRoutes(api);
        this.schedules = new ScheduleRoutes(api, runs, java.time.Duration.ofSeconds(1));
        this.parts = List.of(
                new RunnerRoutes(api),
                new SpecRoutes(api),
                new OrganizationRoutes(api),
                runs,
                schedules,
                new JobRoutes(api),
                new AccessRoutes(api),
                new MemberRoutes(api),
                new ThresholdRoutes(api),
                new AlertRoutes(api),
                new TriageRoutes(api),
                new WebhookRoutes(api),
                new OpenApiRoutes());
    }

    /** Submits the runs of due schedules now, as the once-a-second sweep does; returns how many this node submitted. */
    public int fireDueSchedules() {
        return schedules.fireDue();
    }

    @Override
    public void close() {
        schedules.close();
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        parts.forEach(p -> p.addRoutes(config));
    }
}
