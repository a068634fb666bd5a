package dev.baton.dispatch.pools;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Pool;
import dev.baton.store.PoolSettings;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreException;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Runner pools over the API (issue 43; docs/api.md "Pools"), all for the admin:
 *
 * <ul>
 *   <li>{@code POST /v0/pools}: creates one (409 {@code pool_exists} when the slug is taken)
 *   <li>{@code GET /v0/pools}: every pool with its live machines
 *   <li>{@code GET /v0/pools/{pool}}: one pool, its live machines and the last ones that ended
 *   <li>{@code PATCH /v0/pools/{pool}}: changes the fields given; the scaler follows at its next pass
 *   <li>{@code DELETE /v0/pools/{pool}}: stops its machines, then deletes it
 * </ul>
 * The scaler reads the pools from the store, so a change made on any node reaches it.
 */
public final class PoolRoutes implements RouteModule {
    static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(5);
    static final Duration DEFAULT_BOOT_TIMEOUT = Duration.ofMinutes(5);
    static final long MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
    /** How many ended machines GET of one pool shows. */
    static final int ENDED_SHOWN = 20;

    private final Store store;
    private final PoolScaler scaler;
    private final Set<String> providers;
    private final Clock clock;

    public PoolRoutes(Store store, PoolScaler scaler, Set<String> providers, Clock clock) {
        this.store = store;
        this.scaler = scaler;
        this.providers = new TreeSet<>(providers);
        this.clock = clock;
    }

    /** A create or update body; on update every field is optional. */
    record PoolBody(
            String slug,
            String spec,
            Map<String, String> labels,
            Integer minIdle,
            Integer max,
            Long idleTimeoutSeconds,
            Long bootTimeoutSeconds,
            String provider,
            Map<String, String> providerConfig) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/pools", this::create, RouteAccess.admin().audited("pool.created"));
        config.routes.get("/v0/pools", this::list, RouteAccess.admin());
        config.routes.get("/v0/pools/{pool}", this::get, RouteAccess.admin());
        config.routes.patch(
                "/v0/pools/{pool}", this::update, RouteAccess.admin().audited("pool.updated"));
        config.routes.delete(
                "/v0/pools/{pool}", this::delete, RouteAccess.admin().audited("pool.deleted"));
    }

    private void create(Context ctx) {
        PoolBody body = Json.decode(Json.readBody(ctx, 64 * 1024), PoolBody.class);
        if (body.slug() == null) throw ApiException.missingField("slug");
        Slug slug;
        try {
            slug = Slug.of(body.slug());
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("slug", e.getMessage());
        }
        if (body.spec() == null) throw ApiException.missingField("spec");
        if (body.max() == null) throw ApiException.missingField("max");
        if (body.provider() == null) throw ApiException.missingField("provider");
        PoolSettings settings = settings(
                spec(body.spec()).id(),
                body.labels() == null ? Map.of() : body.labels(),
                body.minIdle() == null ? 0 : body.minIdle(),
                body.max(),
                body.idleTimeoutSeconds() == null ? DEFAULT_IDLE_TIMEOUT.toSeconds() : body.idleTimeoutSeconds(),
                body.bootTimeoutSeconds() == null ? DEFAULT_BOOT_TIMEOUT.toSeconds() : body.bootTimeoutSeconds(),
                body.provider(),
                body.providerConfig() == null ? Map.of() : body.providerConfig());
        Pool pool;
        try {
            pool = store.pools().createPool(slug.value(), settings, clock.instant());
        } catch (StoreException e) {
            if (e.reason() != StoreException.Reason.CONFLICT) throw e;
            throw ApiException.conflict("pool_exists", "a pool '" + slug.value() + "' exists already");
        }
        Json.write(ctx, 201, PoolView.of(store, pool, 0, clock.instant()));
    }

    private void list(Context ctx) {
        Json.write(
                ctx,
                200,
                Map.of(
                        "pools",
                        store.pools().listPools().stream()
                                .map(p -> PoolView.of(store, p, 0, clock.instant()))
                                .toList()));
    }

    private void get(Context ctx) {
        Json.write(ctx, 200, PoolView.of(store, pool(ctx), ENDED_SHOWN, clock.instant()));
    }

    private void update(Context ctx) {
        Pool pool = pool(ctx);
        PoolBody body = Json.decode(Json.readBody(ctx, 64 * 1024), PoolBody.class);
        if (body.slug() != null && !body.slug().equals(pool.slug()))
            throw ApiException.invalidField("slug", "a pool's slug cannot change");
        PoolSettings old = pool.settings();
        PoolSettings settings = settings(
                body.spec() == null ? old.specId() : spec(body.spec()).id(),
                body.labels() == null ? old.labels() : body.labels(),
                body.minIdle() == null ? old.minIdle() : body.minIdle(),
                body.max() == null ? old.max() : body.max(),
                body.idleTimeoutSeconds() == null ? old.idleTimeout().toSeconds() : body.idleTimeoutSeconds(),
                body.bootTimeoutSeconds() == null ? old.bootTimeout().toSeconds() : body.bootTimeoutSeconds(),
                body.provider() == null ? old.provider() : body.provider(),
                body.providerConfig() == null ? config(old.providerConfig()) : body.providerConfig());
        Pool updated = store.pools().updatePool(pool.id(), settings, clock.instant());
        Json.write(ctx, 200, PoolView.of(store, updated, ENDED_SHOWN, clock.instant()));
    }

    private void delete(Context ctx) {
        Pool pool = pool(ctx);
        if (!scaler.stopAll(pool, "its pool was deleted"))
            throw new ApiException(
                    503,
                    "pool_stop_failed",
                    "a machine of pool '" + pool.slug() + "' could not be stopped (GET the pool for its reason);"
                            + " nothing was deleted, try again");
        store.pools().deletePool(pool.id());
        ctx.status(204);
    }

    private Pool pool(Context ctx) {
        String ref = ctx.pathParam("pool");
        return store.pools()
                .findPool(ref)
                .orElseThrow(() -> ApiException.notFound("pool_not_found", "no pool '" + ref + "'"));
    }

    private Spec spec(String ref) {
        return store.specs()
                .findSpec(ResourceId.of(ref))
                .filter(s -> s.archived() == null)
                .orElseThrow(() -> ApiException.notFound("spec_not_found", "no spec '" + ref + "'"));
    }

    private PoolSettings settings(
            long specId,
            Map<String, String> labels,
            int minIdle,
            int max,
            long idleSeconds,
            long bootSeconds,
            String provider,
            Map<String, String> providerConfig) {
        if (max < 1 || max > PoolSettings.MAX_MACHINES)
            throw ApiException.invalidField("max", "max must be between 1 and " + PoolSettings.MAX_MACHINES);
        if (minIdle < 0 || minIdle > max)
            throw ApiException.invalidField("min_idle", "min_idle must be between 0 and max (" + max + ")");
        if (idleSeconds < 0 || idleSeconds > MAX_TIMEOUT_SECONDS)
            throw ApiException.invalidField(
                    "idle_timeout_seconds", "idle_timeout_seconds must be between 0 and " + MAX_TIMEOUT_SECONDS);
        if (bootSeconds < 1 || bootSeconds > MAX_TIMEOUT_SECONDS)
            throw ApiException.invalidField(
                    "boot_timeout_seconds", "boot_timeout_seconds must be between 1 and " + MAX_TIMEOUT_SECONDS);
        if (!providers.contains(provider))
            throw ApiException.invalidField(
                    "provider", "provider must be one of " + String.join(", ", providers) + ", got '" + provider + "'");
        for (var e : labels.entrySet()) {
            if (e.getKey() == null
                    || e.getKey().isBlank()
                    || e.getKey().length() > 63
                    || e.getValue() == null
                    || e.getValue().length() > 255)
                throw ApiException.invalidField(
                        "labels", "labels are keys of 1-63 characters with values of at most 255");
        }
        if (labels.size() > 32) throw ApiException.invalidField("labels", "a pool has at most 32 labels");
        for (var e : providerConfig.entrySet()) {
            if (e.getValue() == null)
                throw ApiException.invalidField(
                        "provider_config", "provider_config is an object of strings ('" + e.getKey() + "' is null)");
        }
        String json;
        try {
            json = Wire.mapper().writeValueAsString(providerConfig);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        if (json.length() > 16 * 1024)
            throw ApiException.invalidField("provider_config", "provider_config is at most 16 KiB of JSON");
        return new PoolSettings(
                specId,
                labels,
                minIdle,
                max,
                Duration.ofSeconds(idleSeconds),
                Duration.ofSeconds(bootSeconds),
                provider,
                json);
    }

    static Map<String, String> config(String json) {
        try {
            return Wire.mapper().readValue(json, new com.fasterxml.jackson.core.type.TypeReference<>() {});
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("provider_config is not a JSON object of strings", e);
        }
    }
}
