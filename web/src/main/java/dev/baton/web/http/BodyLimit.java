package dev.baton.web.http;

import io.javalin.config.JavalinConfig;

/**
 * Refuses any /v0 request whose declared body exceeds request_body_max_bytes with 413 before a
 * route runs, even routes that take no body. Bodies without a length (chunked) are bounded
 * while they are read ({@link Json#readBody}).
 */
public final class BodyLimit implements RouteModule {
    private final long maxBytes;

    public BodyLimit(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.before("/v0/*", ctx -> {
            if (ctx.req().getContentLengthLong() > maxBytes) throw Json.tooLarge(maxBytes);
        });
    }
}
