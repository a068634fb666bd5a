package dev.baton.web.http;

import dev.baton.store.StoreException;
import dev.baton.store.blob.BlobStorageException;
import io.javalin.config.JavalinConfig;
import io.javalin.http.HttpResponseException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps every failure to the one JSON error shape ({@link ApiError}), including Javalin's own
 * 404/405/413 and anything unexpected (500, logged with its stack, never shown to the client).
 */
public final class ErrorHandling implements RouteModule {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorHandling.class);

    @Override
    public void addRoutes(JavalinConfig config) {
        config.http.prefer405over404 = true;
        config.routes.exception(ApiException.class, (e, ctx) -> Json.error(ctx, e.status(), e.error()));
        config.routes.exception(
                HttpResponseException.class, (e, ctx) -> Json.error(ctx, e.getStatus(), fromJavalin(e)));
        config.routes.exception(StoreException.class, (e, ctx) -> {
            ApiException mapped = fromStore(e);
            Json.error(ctx, mapped.status(), mapped.error());
        });
        config.routes.exception(BlobStorageException.class, (e, ctx) -> {
            LOG.error("{} {}: blob storage failed", ctx.method(), ctx.path(), e);
            Json.error(
                    ctx,
                    503,
                    new ApiError("blob_storage_unavailable", "the blob storage is unavailable; try again later", null));
        });
        config.routes.exception(Exception.class, (e, ctx) -> {
            LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
            Json.error(
                    ctx,
                    500,
                    new ApiError("internal_error", "the server failed to handle this request; see its log", null));
        });
    }

    private static ApiError fromJavalin(HttpResponseException e) {
        return switch (e.getStatus()) {
            case 404 -> new ApiError("route_not_found", "no such endpoint", null);
            case 405 -> new ApiError("method_not_allowed", "this endpoint does not support that method", null);
            case 413 -> new ApiError("payload_too_large", "request body is too large", null);
            case 400 -> new ApiError("bad_request", e.getMessage(), null);
            default -> new ApiError("http_" + e.getStatus(), e.getMessage(), null);
        };
    }

    /** Fallback for store refusals that a route did not translate into a more specific code. */
    public static ApiException fromStore(StoreException e) {
        return switch (e.reason()) {
            case CONFLICT -> ApiException.conflict("conflict", e.getMessage());
            case IN_USE -> ApiException.conflict("in_use", e.getMessage());
            case NOT_FOUND -> ApiException.notFound("not_found", e.getMessage());
        };
    }
}
