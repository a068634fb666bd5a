package dev.baton.dispatch.channel;

import dev.baton.dispatch.RunnerSession;
import dev.baton.dispatch.Sessions;
import dev.baton.dispatch.cluster.ClusterBus;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.message.DrainState;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.store.Node;
import dev.baton.store.Organization;
import dev.baton.store.ProjectMinutes;
import dev.baton.store.Role;
import dev.baton.store.Runner;
import dev.baton.store.Store;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Admin actions on connected runners (seed 002's server-directed worker states, seed 000's
 * {@code update}) and usage readout:
 *
 * <ul>
 *   <li>{@code POST /v0/runners/{runner}/drain} {@code {"state":"quiet"|"terminate"|"running"}}
 *   <li>{@code POST /v0/runners/{runner}/update} {@code {"version","url","checksum"}}
 *   <li>{@code POST /v0/runners/{runner}/noise}: measure the runner's noise now ({@code calibrate}, decision 0062)
 *   <li>{@code GET /v0/organizations/{organization}/usage} {@code ?from=&to=}: minutes billed in a period, per project
 *   <li>{@code GET /v0/runners/{runner}/capabilities}: what the connected runner reported with {@code ready}
 *   <li>{@code GET /v0/nodes}: the server nodes sharing the database (docs/operations.md)
 * </ul>
 * Who may call them is decided by AccessControl (admin; usage: the organization's owners). A
 * directive for a runner that is not connected is refused (409), not queued: the runner's own
 * state after a reconnect is its own. A runner connected to another live node gets it through
 * that node (the cluster bus); the answer then names the node.
 */
final class RunnerControlRoutes implements RouteModule {
    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");
    static final int MAX_VERSION = 128;
    static final int MAX_URL = 2048;

    private final Store store;
    private final Sessions sessions;
    private final String nodeId;
    private final Clock clock;
    private final Duration nodeTimeout;
    private final RunnerDirectives directives;

    RunnerControlRoutes(
            Store store, Sessions sessions, ClusterBus bus, String nodeId, Clock clock, Duration nodeTimeout) {
        this.store = store;
        this.sessions = sessions;
        this.nodeId = nodeId;
        this.clock = clock;
        this.nodeTimeout = nodeTimeout;
        this.directives = new RunnerDirectives(store, sessions, bus, nodeId, clock, nodeTimeout);
    }

    record DrainRequest(String state) {}

    record UpdateRequest(String version, String url, String checksum) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post(
                "/v0/runners/{runner}/drain", this::drain, RouteAccess.admin().audited("runner.drained"));
        config.routes.post(
                "/v0/runners/{runner}/update", this::update, RouteAccess.admin().audited("runner.update_sent"));
        // Admin, as RunnerRoutes.MANAGE (the api module's name for it, which this module cannot import).
        config.routes.post(
                "/v0/runners/{runner}/noise",
                this::calibrate,
                RouteAccess.admin().audited("runner.noise_requested"));
        config.routes.get(
                "/v0/organizations/{organization}/usage", this::usage, RouteAccess.onOrganization(Role.OWNER));
        config.routes.get("/v0/runners/{runner}/capabilities", this::capabilities, RouteAccess.admin());
        config.routes.get("/v0/nodes", this::nodes, RouteAccess.admin());
    }

    /**
     * Known only while the runner is connected to this node, and only once it said {@code ready}
     * with capabilities (older runners do not): 409 {@code runner_not_connected} otherwise, as for
     * the directives; {@code capabilities} is null from a runner that sent none, {@code images}
     * (the image digests it holds) null from a runner that reports none.
     */
    private void capabilities(Context ctx) {
        Connected c = connected(ctx);
        var body = new java.util.LinkedHashMap<String, Object>();
        body.put("runner", c.runner().uuid().toString());
        body.put("capabilities", c.session().capabilities().orElse(null));
        // Image affinity (docs/scheduling.md): what the runner holds, most recent first; null if it reports none.
        body.put("images", c.session().heldImages());
        Json.write(ctx, 200, body);
    }

    private record Connected(Runner runner, RunnerSession session) {}

    /** The path's runner and its open session on this node: 404 {@code runner_not_found}, 409 {@code runner_not_connected}. */
    private Connected connected(Context ctx) {
        String ref = ctx.pathParam("runner");
        Runner runner = store.runners()
                .findRunner(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + ref + "'"));
        RunnerSession session = sessions.of(runner.id())
                .orElseThrow(() ->
                        ApiException.conflict("runner_not_connected", "runner '" + ref + "' has no open channel"));
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
        // Bounded so that the directive fits a cluster notification (PostgreSQL NOTIFY carries < 8000 bytes).
        if (body.version().length() > MAX_VERSION)
            throw ApiException.invalidField("version", "version must be at most " + MAX_VERSION + " characters");
        if (body.url() != null && body.url().length() > MAX_URL)
            throw ApiException.invalidField("url", "url must be at most " + MAX_URL + " characters");
        if (body.url() == null
                || !(body.url().startsWith("https://") || body.url().startsWith("http://"))) {
            throw ApiException.invalidField("url", "url must be an http(s) URL");
        }
        if (body.checksum() == null || !SHA256_HEX.matcher(body.checksum()).matches()) {
            throw ApiException.invalidField("checksum", "checksum must be a SHA-256 in 64 lowercase hex digits");
        }
        deliver(ctx, new ServerMessage.Update(body.version(), body.url(), body.checksum()));
    }

    private void deliver(Context ctx, ServerMessage message) {
        String ref = ctx.pathParam("runner");
        Runner runner = store.runners()
                .findRunner(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + ref + "'"));
        String node = directives
                .deliver(runner.id(), message)
                .orElseThrow(() ->
                        ApiException.conflict("runner_not_connected", "runner '" + ref + "' has no open channel"));
        Json.write(ctx, 202, Map.of("delivered", true, "runner", runner.uuid().toString(), "node", node));
    }

    /**
     * Asks a connected runner that holds no job to measure its noise now (decision 0062): 404
     * {@code runner_not_found}, 409 {@code runner_not_connected}, 409 {@code runner_busy} (it holds
     * an attempt). 202 when sent: the runner measures once its {@code ready} is answered (within
     * its poll timeout) and reports {@code calibration}, which {@code GET /v0/runners/{runner}}
     * then shows; {@code previous} is when the calibration shown now was measured, so a client
     * waits for a different one.
     */
    private void calibrate(Context ctx) {
        String ref = ctx.pathParam("runner");
        Runner runner = store.runners()
                .findRunner(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("runner_not_found", "no runner '" + ref + "'"));
        if (directives.connectedNode(runner.id()).isEmpty())
            throw ApiException.conflict("runner_not_connected", "runner '" + ref + "' has no open channel");
        if (store.noise().holdsAttempt(runner.id()))
            throw ApiException.conflict(
                    "runner_busy",
                    "runner '" + ref
                            + "' holds a job; ask again when it is idle (a calibration never runs beside a job)");
        var previous = store.noise().noiseHistory(runner.id(), 1);
        String node = directives
                .deliver(runner.id(), new ServerMessage.Calibrate())
                .orElseThrow(() ->
                        ApiException.conflict("runner_not_connected", "runner '" + ref + "' has no open channel"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("requested", true);
        body.put("runner", runner.uuid().toString());
        body.put("node", node);
        body.put("at", clock.instant().toString());
        body.put(
                "previous",
                previous.isEmpty() ? null : previous.get(0).measured().toString());
        Json.write(ctx, 202, body);
    }

    /** Every node the store knows: alive (heartbeat within the node timeout), or when it stopped or was found dead. */
    private void nodes(Context ctx) {
        Instant since = clock.instant().minus(nodeTimeout);
        List<Map<String, Object>> nodes =
                store.nodes().listNodes().stream().map(n -> view(n, since)).toList();
        Json.write(ctx, 200, Map.of("nodes", nodes, "self", nodeId));
    }

    private static Map<String, Object> view(Node n, Instant aliveSince) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", n.id());
        v.put("alive", n.stopped() == null && !n.lastHeartbeat().isBefore(aliveSince));
        v.put("started", n.started().toString());
        v.put("last_heartbeat", n.lastHeartbeat().toString());
        v.put("stopped", n.stopped() == null ? null : n.stopped().toString());
        v.put("runners", n.runners());
        v.put("in_flight", n.inFlight());
        v.put("advertise_url", n.advertiseUrl());
        return v;
    }

    /**
     * Minutes billed in a period ({@code ?from=&to=}, the current calendar month by default; see
     * {@link UsagePeriod}), in all and per project, beside the organization's all-time total.
     */
    private void usage(Context ctx) {
        String ref = ctx.pathParam("organization");
        Organization org = store.organizations()
                .findOrganization(ResourceId.of(ref))
                .orElseThrow(() -> ApiException.notFound("organization_not_found", "no organization '" + ref + "'"));
        UsagePeriod period = UsagePeriod.of(ctx.queryParam("from"), ctx.queryParam("to"), clock.instant());
        List<Map<String, Object>> projects = new java.util.ArrayList<>();
        long minutes = 0;
        for (ProjectMinutes p : store.liveness().billedMinutes(org.id(), period.from(), period.to())) {
            Map<String, Object> row = new LinkedHashMap<>();
            store.organizations().findProject(p.projectId()).ifPresent(project -> {
                row.put("project", project.uuid().toString());
                row.put("slug", project.slug().value());
                row.put("name", project.name());
            });
            row.put("minutes", p.minutes());
            projects.add(row);
            minutes += p.minutes();
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("organization", org.uuid().toString());
        body.put("slug", org.slug().value());
        body.put("from", period.from().toString());
        body.put("to", period.to().toString());
        body.put("minutes", minutes);
        body.put("projects", projects);
        body.put("all_time_minutes", store.liveness().billedMinutes(org.id()));
        Json.write(ctx, 200, body);
    }
}
