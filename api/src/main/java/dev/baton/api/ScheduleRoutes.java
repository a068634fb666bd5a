package dev.baton.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.schedule.CronExpression;
import dev.baton.store.Schedule;
import dev.baton.store.StoreException;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /v0/schedules}: a {@code POST /v0/run} body submitted on a cron expression in a time
 * zone, or once at a given time (a delayed run). The schedules live in the store; every node
 * sweeps them once per {@code sweepEvery} of real time, reading the injected clock, and
 * {@link ScheduleFiring} makes sure one node submits each occurrence.
 */
final class ScheduleRoutes implements RouteModule, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleRoutes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ApiContext api;
    private final RunRoutes runs;
    private final ScheduleFiring firing;
    private final ScheduledExecutorService sweeper;

    /** The body of {@code POST /v0/schedules}: {@code cron} or {@code at}, not both. */
    record CreateSchedule(String name, String cron, String timezone, String at, JsonNode run) {}

    ScheduleRoutes(ApiContext api, RunRoutes runs, Duration sweepEvery) {
        this.api = api;
        this.runs = runs;
        this.firing = new ScheduleFiring(api.store(), api.clock(), runs);
        this.sweeper = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("baton-schedules").daemon().factory());
        sweeper.scheduleWithFixedDelay(
                this::sweep, sweepEvery.toMillis(), sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void sweep() {
        try {
            firing.fireDue();
        } catch (RuntimeException e) {
            // The database may be away for a moment; the next sweep tries again.
            LOG.warn("schedule sweep failed", e);
        }
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        // Who may call them is decided by AccessControl (RouteTable): the admin.
        config.routes.post("/v0/schedules", this::create);
        config.routes.get("/v0/schedules", this::list);
        config.routes.get("/v0/schedules/{schedule}", this::get);
        config.routes.delete("/v0/schedules/{schedule}", this::delete);
        config.routes.post("/v0/schedules/{schedule}/pause", ctx -> setPaused(ctx, true));
        config.routes.post("/v0/schedules/{schedule}/resume", ctx -> setPaused(ctx, false));
    }

    private void create(Context ctx) {
        CreateSchedule body = api.body(ctx, CreateSchedule.class);
        String name = Fields.name("name", body.name());
        if (name == null) throw ApiException.missingField("name");
        if ((body.cron() == null) == (body.at() == null))
            throw ApiException.badRequest("invalid_schedule", "give either cron or at");
        String timezone = body.timezone() == null ? "UTC" : body.timezone();
        if (body.run() == null || !body.run().isObject())
            throw ApiException.invalidField("run", "run must be a POST /v0/run body (an object)");
        Instant now = api.now();
        Instant first;
        try {
            CronExpression.zone(timezone);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("timezone", e.getMessage());
        }
        try {
            first = body.cron() != null
                    ? CronExpression.parse(body.cron()).next(now, CronExpression.zone(timezone))
                    : Instant.parse(body.at());
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("cron", e.getMessage());
        } catch (DateTimeParseException e) {
            throw ApiException.invalidField("at", "at must be an ISO-8601 instant such as 2026-01-01T03:00:00Z");
        }
        // The run is checked now, so a schedule that could never submit is refused at once.
        runs.validate(decodeRun(body.run().toString()));
        Schedule schedule = new Schedule(
                UUID.randomUUID().toString(),
                name,
                body.cron(),
                timezone,
                body.run().toString(),
                false,
                first,
                0,
                null,
                null,
                null,
                now);
        try {
            Json.write(ctx, 201, view(api.store().schedules().createSchedule(schedule)));
        } catch (StoreException e) {
            if (e.reason() == StoreException.Reason.CONFLICT)
                throw ApiException.conflict("schedule_name_taken", "schedule name '" + name + "' is taken");
            throw e;
        }
    }

    private static RunRequest decodeRun(String run) {
        try {
            return Json.decode(run.getBytes(StandardCharsets.UTF_8), RunRequest.class);
        } catch (ApiException e) {
            String field = e.error().field();
            throw new ApiException(
                    e.status(), e.error().code(), "run: " + e.getMessage(), field == null ? "run" : "run." + field);
        }
    }

    private void list(Context ctx) {
        Json.write(
                ctx,
                200,
                api.store().schedules().listSchedules().stream()
                        .map(ScheduleRoutes::view)
                        .toList());
    }

    private void get(Context ctx) {
        Json.write(ctx, 200, view(find(ctx)));
    }

    private void delete(Context ctx) {
        if (!api.store().schedules().deleteSchedule(find(ctx).uuid())) throw notFound(ctx);
        ctx.status(204);
    }

    /** Pause or resume: a compare-and-set, tried again if a firing changed the schedule meanwhile. */
    private void setPaused(Context ctx, boolean paused) {
        for (int i = 0; i < 10; i++) {
            Schedule s = find(ctx);
            // Resuming a cron schedule starts from now: occurrences while paused are not caught up.
            Instant next =
                    !paused && s.paused() && s.cron() != null ? ScheduleFiring.nextAfter(s, api.now()) : s.nextFire();
            Schedule changed = new Schedule(
                    s.uuid(),
                    s.name(),
                    s.cron(),
                    s.timezone(),
                    s.run(),
                    paused,
                    next,
                    s.version(),
                    s.lastFired(),
                    s.lastReport(),
                    s.lastError(),
                    s.created());
            if (api.store().schedules().updateSchedule(changed)) {
                Json.write(ctx, 200, view(changed.withVersion(s.version() + 1)));
                return;
            }
        }
        throw ApiException.conflict("schedule_busy", "the schedule kept changing; try again");
    }

    /** By uuid or by name. */
    private Schedule find(Context ctx) {
        String key = ctx.pathParam("schedule");
        return api.store()
                .schedules()
                .findSchedule(key)
                .or(() -> api.store().schedules().listSchedules().stream()
                        .filter(s -> s.name().equals(key))
                        .findFirst())
                .orElseThrow(() -> notFound(ctx));
    }

    private static ApiException notFound(Context ctx) {
        return ApiException.notFound(
                "schedule_not_found", "schedule '" + ctx.pathParam("schedule") + "' does not exist");
    }

    private static ScheduleView view(Schedule s) {
        try {
            return ScheduleView.of(s, JSON.readTree(s.run()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("schedule " + s.uuid() + " holds a run that is not JSON", e);
        }
    }

    /** Fires due schedules now (the background sweep does the same). */
    int fireDue() {
        return firing.fireDue();
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}
