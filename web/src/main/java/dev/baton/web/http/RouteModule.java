package dev.baton.web.http;

import io.javalin.config.JavalinConfig;

/**
 * A part of the server that contributes routes (management API, runner channel, registry,
 * metrics). Javalin 7 takes all routes up front, so BatonServer hands each module the config.
 */
public interface RouteModule {
    void addRoutes(JavalinConfig config);
}
