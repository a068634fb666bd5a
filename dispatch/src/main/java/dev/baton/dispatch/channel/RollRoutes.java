package dev.baton.dispatch.channel;

import dev.baton.core.config.ShippedVersion;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.NewRoll;
import dev.baton.store.Roll;
import dev.baton.store.RollStep;
import dev.baton.store.Runner;
import dev.baton.store.RunnerFilter;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreException;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.Principal;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Fleet upgrades over the API (issue 41; docs/api.md "Fleet upgrades"), driven by {@link FleetRolls}:
 *
 * <ul>
 *   <li>{@code POST /v0/rolls} {@code {"all": true | "spec": S | "runner": R, "version", "url", "checksum",
 *       "max_unavailable", "rejoin_timeout_seconds"}}: starts a roll (409 {@code roll_in_progress} while one runs)
 *   <li>{@code GET /v0/rolls}: the recent rolls, newest first
 *   <li>{@code GET /v0/rolls/{roll}}: one roll and each runner's step
 * </ul>
 * Not under {@code /v0/runners/}, where a runner slugged {@code rolls} would shadow them.
 */
final class RollRoutes implements RouteModule {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    static final Duration DEFAULT_REJOIN_TIMEOUT = Duration.ofMinutes(10);
    static final int MAX_UNAVAILABLE = 1024;
    static final long MAX_REJOIN_TIMEOUT_SECONDS = 7 * 24 * 3600;
    private static final int LISTED = 20;

    private final Store store;
    private final FleetRolls rolls;

    RollRoutes(Store store, FleetRolls rolls) {
        this.store = store;
        this.rolls = rolls;
    }

    record StartRoll(
            Boolean all,
            String spec,
            String runner,
            String version,
            String url,
            String checksum,
            Integer maxUnavailable,
            Long rejoinTimeoutSeconds) {}

    /** A roll as the API shows it. */
    record RollView(
            UUID uuid,
            String state,
            String target,
            String version,
            String url,
            String checksum,
            int maxUnavailable,
            long rejoinTimeoutSeconds,
            String reason,
            String createdBy,
            Instant created,
            Instant modified,
            Instant ended,
            List<StepView> runners) {
        static RollView of(Roll r) {
            return new RollView(
                    r.uuid(),
                    r.state(),
                    r.target(),
                    r.version(),
                    r.url(),
                    r.checksum(),
                    r.maxUnavailable(),
                    r.rejoinTimeout().toSeconds(),
                    r.reason(),
                    r.createdBy(),
                    r.created(),
                    r.modified(),
                    r.ended(),
                    r.steps().stream().map(StepView::of).toList());
        }
    }

    /** One runner of a roll: where the roll stands with it. */
    record StepView(String runner, String state, String fromVersion, Instant started, Instant ended, String message) {
        static StepView of(RollStep s) {
            return new StepView(s.runnerSlug(), s.state(), s.fromVersion(), s.started(), s.ended(), s.message());
        }
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/rolls", this::start);
        config.routes.get("/v0/rolls", this::list);
        config.routes.get("/v0/rolls/{roll}", this::get);
    }

    private void start(Context ctx) {
        StartRoll body = Json.decode(Json.readBody(ctx, 16 * 1024), StartRoll.class);
        int chosen = (Boolean.TRUE.equals(body.all()) ? 1 : 0)
                + (body.spec() != null ? 1 : 0)
                + (body.runner() != null ? 1 : 0);
        if (chosen != 1)
            throw ApiException.badRequest(
                    "invalid_target", "say which runners: exactly one of all (true), spec or runner");
        String version = body.version() == null || body.version().isBlank() ? ShippedVersion.value() : body.version();
        if (version.length() > RunnerControlRoutes.MAX_VERSION) {
            throw ApiException.invalidField(
                    "version", "version must be at most " + RunnerControlRoutes.MAX_VERSION + " characters");
        }
        if (body.url() == null
                || !(body.url().startsWith("https://") || body.url().startsWith("http://"))
                || body.url().length() > RunnerControlRoutes.MAX_URL) {
            throw ApiException.invalidField(
                    "url", "url must be an http(s) URL of at most " + RunnerControlRoutes.MAX_URL + " characters");
        }
        if (body.checksum() == null || !SHA256_HEX.matcher(body.checksum()).matches()) {
            throw ApiException.invalidField("checksum", "checksum must be a SHA-256 in 64 lowercase hex digits");
        }
        int maxUnavailable = body.maxUnavailable() == null ? 1 : body.maxUnavailable();
        if (maxUnavailable < 1 || maxUnavailable > MAX_UNAVAILABLE) {
            throw ApiException.invalidField(
                    "max_unavailable", "max_unavailable must be between 1 and " + MAX_UNAVAILABLE);
        }
        long timeout =
                body.rejoinTimeoutSeconds() == null ? DEFAULT_REJOIN_TIMEOUT.toSeconds() : body.rejoinTimeoutSeconds();
        if (timeout < 1 || timeout > MAX_REJOIN_TIMEOUT_SECONDS) {
            throw ApiException.invalidField(
                    "rejoin_timeout_seconds",
                    "rejoin_timeout_seconds must be between 1 and " + MAX_REJOIN_TIMEOUT_SECONDS);
        }
        String target;
        List<Runner> runners;
        if (body.runner() != null) {
            Runner r = store.runners()
                    .findRunner(ResourceId.of(body.runner()))
                    .filter(x -> !x.isArchived())
                    .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + body.runner() + "'"));
            target = "runner:" + r.slug().value();
            runners = List.of(r);
        } else if (body.spec() != null) {
            Spec spec = store.specs()
                    .findSpec(ResourceId.of(body.spec()))
                    .orElseThrow(() -> ApiException.notFound("spec_not_found", "no spec '" + body.spec() + "'"));
            target = "spec:" + spec.slug().value();
            runners = active().stream()
                    .filter(r -> store.specs().runnerSpecs(r.id()).stream().anyMatch(s -> s.id() == spec.id()))
                    .toList();
        } else {
            target = "all";
            runners = active();
        }
        if (runners.isEmpty()) throw ApiException.badRequest("no_runners", "no runner to update (" + target + ")");
        String by = AccessControl.caller(ctx).map(Principal::actor).orElse(null);
        Roll roll;
        try {
            roll = rolls.start(
                    new NewRoll(
                            target,
                            version,
                            body.url(),
                            body.checksum(),
                            maxUnavailable,
                            Duration.ofSeconds(timeout),
                            by),
                    runners);
        } catch (StoreException e) {
            if (e.reason() != StoreException.Reason.CONFLICT) throw e;
            throw ApiException.conflict(
                    "roll_in_progress", "a roll is running already (GET /v0/rolls); one roll runs at a time");
        }
        Json.write(ctx, 201, RollView.of(roll));
    }

    private List<Runner> active() {
        return store.runners().listRunners(new RunnerFilter(null, null, false));
    }

    private void list(Context ctx) {
        Json.write(
                ctx,
                200,
                store.rolls().listRolls(LISTED).stream().map(RollView::of).toList());
    }

    private void get(Context ctx) {
        String ref = ctx.pathParam("roll");
        UUID uuid;
        try {
            uuid = UUID.fromString(ref);
        } catch (IllegalArgumentException e) {
            throw ApiException.notFound("roll_not_found", "no roll '" + ref + "'");
        }
        Roll roll = store.rolls()
                .findRoll(uuid)
                .orElseThrow(() -> ApiException.notFound("roll_not_found", "no roll '" + ref + "'"));
        Json.write(ctx, 200, RollView.of(roll));
    }
}
