package dev.baton.server.channel;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.server.http.ApiException;
import dev.baton.server.http.Json;
import dev.baton.server.http.RouteModule;
import dev.baton.server.store.Organization;
import dev.baton.server.store.Runner;
import dev.baton.server.store.Store;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Admin actions on connected runners (seed 002's server-directed worker states, seed 000's
 * {@code update}) and usage readout:
 *
 * <ul>
 *   <li>{@code POST /v0/runners/{runner}/drain} {@code {"state":"quiet"|"terminate"|"running"}}
 *   <li>{@code POST /v0/runners/{runner}/update} {@code {"version","url","checksum"}}
 *   <li>{@code GET /v0/organizations/{organization}/usage}
 *   <li>{@code GET /v0/runners/{runner}/capabilities}: what the connected runner reported with {@code ready}
 * </ul>
 * Who may call them is decided by AccessControl (admin; usage: the organization's owners). A directive for a runner that is not connected is refused (409), not queued: the runner's own
 * state after a reconnect is its own.
 */
final class RunnerControlRoutes implements RouteModule {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    private final Store store;
    private final Sessions sessions;

    RunnerControlRoutes(Store store, Sessions sessions) {
        this.store = store;
        this.sessions = sessions;
    }

    record DrainRequest(String state) {}

    record UpdateRequest(String version, String url, String checksum) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/runners/{runner}/drain", this::drain);
        config.routes.post("/v0/runners/{runner}/update", this::update);
        config.routes.get("/v0/organizations/{organization}/usage", this::usage);
        config.routes.get("/v0/runners/{runner}/capabilities", this::capabilities);
    }

    /**
     * Known only while the runner is connected to this node, and only once it said {@code ready}
     * with capabilities (older runners do not): 409 {@code runner_not_connected} otherwise, as for
     * the directives; {@code capabilities} is null from a runner that sent none.
     */
    private void capabilities(Context ctx) {
        Connected c = connected(ctx);
        var body = new java.util.LinkedHashMap<String, Object>();
        body.put("runner", c.runner().uuid().toString());
        body.put("capabilities", c.session().capabilities().orElse(null));
        Json.write(ctx, 200, body);
    }

    private record Connected(Runner runner, RunnerSession session) {}

    /** The path's runner and its open session on this node: 404 {@code runner_not_found}, 409 {@code runner_not_connected}. */
    private Connected connected(Context ctx) {
        String ref = ctx.pathParam("runner");
        Runner runner = store.findRunner(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + ref + "'"));
        RunnerSession session = sessions.of(runner.id())
                .orElseThrow(() -> ApiException.conflict("runner_not_connected", "runner '" + ref + "' has no open channel"));
        return new Connected(runner, session);
    }

    private void drain(Context ctx) {
        DrainRequest body = Json.decode(Json.readBody(ctx, 4096), DrainRequest.class);
        if (body.state() == null) throw ApiException.missingField("state");
        DrainState state;
        try {
            state = DrainState.parse(body.state());
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField("state", "state must be running, quiet or terminate");
        }
        deliver(ctx, new ServerMessage.Drain(state));
    }

    private void update(Context ctx) {
        UpdateRequest body = Json.decode(Json.readBody(ctx, 16 * 1024), UpdateRequest.class);
        if (body.version() == null || body.version().isBlank()) throw ApiException.missingField("version");
        if (body.url() == null || !(body.url().startsWith("https://") || body.url().startsWith("http://"))) {
            throw ApiException.invalidField("url", "url must be an http(s) URL");
        }
        if (body.checksum() == null || !SHA256_HEX.matcher(body.checksum()).matches()) {
            throw ApiException.invalidField("checksum", "checksum must be a SHA-256 in 64 lowercase hex digits");
        }
        deliver(ctx, new ServerMessage.Update(body.version(), body.url(), body.checksum()));
    }

    private void deliver(Context ctx, ServerMessage message) {
        Connected c = connected(ctx);
        c.session().send(message);
        Json.write(ctx, 202, Map.of("delivered", true, "runner", c.runner().uuid().toString()));
    }

    private void usage(Context ctx) {
        String ref = ctx.pathParam("organization");
        Organization org = store.findOrganization(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("organization_not_found", "no organization '" + ref + "'"));
        Json.write(ctx, 200, Map.of("organization", org.uuid().toString(), "minutes", store.billedMinutes(org.id())));
    }
}
