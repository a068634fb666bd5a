package dev.baton.dispatch.channel;

import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.Dispatcher;
import dev.baton.dispatch.JobLifecycle;
import dev.baton.dispatch.JobPullTokens;
import dev.baton.dispatch.Liveness;
import dev.baton.dispatch.RunnerSession;
import dev.baton.dispatch.RunnerSpecSets;
import dev.baton.dispatch.Sessions;
import dev.baton.protocol.message.InvalidMessageException;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.PollTimeout;
import dev.baton.store.Job;
import dev.baton.store.Runner;
import dev.baton.store.Store;
import dev.baton.web.auth.RunnerAuthenticator;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /v0/runners/{runner}/channel}: the runner's WebSocket, authenticated with its key
 * before the upgrade. Every text message is one protocol message; the reply (ack, job, stale,
 * error…) goes back on the same channel. Messages and frames are bounded by
 * request_body_max_bytes, enforced by Jetty at the protocol level.
 */
public final class ChannelRoutes implements RouteModule {
    public static final String PATH = "/v0/runners/{runner}/channel";
    private static final Logger LOG = LoggerFactory.getLogger(ChannelRoutes.class);
    private static final String RUNNER_ATTRIBUTE = "baton.channel.runner";
    private static final String SESSION_ATTRIBUTE = "baton.channel.session";
    private static final String CLIENT_ATTRIBUTE = "baton.channel.client";

    private final RunnerAuthenticator runners;
    private final Store store;
    private final Sessions sessions;
    private final Dispatcher dispatcher;
    private final JobLifecycle lifecycle;
    private final Liveness liveness;
    private final Clock clock;
    private final long maxMessageBytes;
    private final Duration heartbeatTimeout;
    private final PollTimeout defaultPollTimeout;
    private final Duration idleTimeout;
    private final RunnerSpecSets specSets;
    private final ConnectLimiter connects;
    private final BatonMetrics metrics;
    private final JobPullTokens pullTokens;

    public ChannelRoutes(
            Store store,
            Sessions sessions,
            Dispatcher dispatcher,
            JobLifecycle lifecycle,
            Liveness liveness,
            Clock clock,
            long maxMessageBytes,
            PollTimeout defaultPollTimeout,
            Duration heartbeatTimeout,
            RunnerSpecSets specSets,
            ConnectLimiter connects,
            BatonMetrics metrics,
            JobPullTokens pullTokens) {
        this.pullTokens = pullTokens;
        this.runners = new RunnerAuthenticator(store);
        this.connects = connects;
        this.metrics = metrics;
        this.specSets = specSets;
        this.store = store;
        this.sessions = sessions;
        this.dispatcher = dispatcher;
        this.lifecycle = lifecycle;
        this.liveness = liveness;
        this.clock = clock;
        this.maxMessageBytes = maxMessageBytes;
        this.heartbeatTimeout = heartbeatTimeout;
        this.defaultPollTimeout = defaultPollTimeout;
        // Jetty's own idle timeout is only a backstop for dead TCP connections; the protocol's
        // read timer (valid messages only) is enforced by ReadTimer on the injected clock.
        this.idleTimeout = heartbeatTimeout.multipliedBy(4).compareTo(Duration.ofMinutes(5)) > 0
                ? heartbeatTimeout.multipliedBy(4)
                : Duration.ofMinutes(5);
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.jetty.modifyWebSocketServletFactory(factory -> {
            factory.setMaxTextMessageSize(maxMessageBytes);
            factory.setMaxBinaryMessageSize(maxMessageBytes);
            factory.setMaxFrameSize(maxMessageBytes);
            factory.setIdleTimeout(idleTimeout);
        });
        config.routes.wsBeforeUpgrade(PATH, this::authenticate);
        config.routes.ws(PATH, ws -> {
            ws.onConnect(this::connected);
            ws.onMessage(ctx -> received(ctx, ctx.message()));
            ws.onBinaryMessage(ctx -> session(ctx)
                    .ifPresent(s -> s.send(new ServerMessage.Error(
                            "binary_not_supported", "the channel carries JSON text messages only"))));
            ws.onClose(ctx -> closed(ctx));
            ws.onError(ctx -> {
                if (tooLarge(ctx.error())) {
                    // Jetty closes with 1009 itself; say which runner, so a refused result is not a mystery.
                    LOG.warn(
                            "runner {} sent a message over the channel's limit of {} bytes (request_body_max_bytes); closed with 1009,"
                                    + " the runner resends it smaller",
                            session(ctx).map(x -> x.runner().slug().value()).orElse("?"),
                            maxMessageBytes);
                } else {
                    LOG.debug("channel error: {}", String.valueOf(ctx.error()));
                }
            });
        });
    }

    /** Checks the runner key before upgrading: one query by key hash and runner, archived runners excluded. */
    private void authenticate(Context ctx) {
        Optional<Runner> runner;
        ApiException spent = null;
        try {
            runner = runners.authenticate(ctx.pathParam("runner"), ctx.header("Authorization"));
        } catch (ApiException e) { // a single-job runner after its job (issue 43)
            runner = Optional.empty();
            spent = e;
        }
        if (runner.isEmpty()) {
            var refused = spent != null
                    ? spent
                    : new ApiException(401, "unauthorized", RunnerAuthenticator.refusal(ctx.pathParam("runner")));
            // Javalin does not render results on the upgrade path, so the error body is written and
            // committed here; the exception then stops the upgrade.
            try {
                ctx.res().setStatus(refused.status());
                ctx.res().setContentType("application/json");
                ctx.res().getOutputStream().write(Wire.mapper().writeValueAsBytes(refused.error()));
                ctx.res().flushBuffer();
            } catch (IOException e) {
                LOG.debug("could not write the refusal: {}", e.toString());
            }
            throw refused;
        }
        ctx.attribute(RUNNER_ATTRIBUTE, runner.get());
        // The client behind trusted proxies (ClientAddress), known only on the upgrade request.
        ctx.attribute(CLIENT_ATTRIBUTE, ctx.ip());
    }

    private void connected(WsContext ctx) {
        Runner runner = ctx.attribute(RUNNER_ATTRIBUTE);
        if (runner == null) { // defensive: the upgrade handler always sets it
            ctx.closeSession(1008, "unauthenticated");
            return;
        }
        String remote = ctx.attribute(CLIENT_ATTRIBUTE);
        // Before the session is registered: a refused connect must not replace the runner's open channel.
        Optional<Duration> wait = connects.take(runner.id());
        if (wait.isPresent()) {
            metrics.connectRefused(ConnectLimiter.REASON);
            LOG.warn(
                    "runner {} connected from {} too often (runner_connects_per_minute); closed with {}",
                    runner.slug(),
                    remote,
                    RunnerSession.CLOSE_TOO_MANY_CONNECTS);
            ctx.closeSession(
                    RunnerSession.CLOSE_TOO_MANY_CONNECTS,
                    "too many connects of this runner; retry in "
                            + Math.max(1, (wait.get().toMillis() + 999) / 1000) + " s");
            return;
        }
        RunnerSession session = new RunnerSession(runner, ctx, clock.instant());
        session.remoteAddress(RunnerHost.address(ctx.session.getRemoteSocketAddress()));
        ctx.attribute(SESSION_ATTRIBUTE, session);
        sessions.register(session).ifPresent(old -> {
            dispatcher.forget(old);
            old.close(RunnerSession.CLOSE_REPLACED, "replaced by a newer connection of this runner");
        });
        try {
            lifecycle.presence().connectionOpened(session);
        } catch (RuntimeException e) {
            // The store is unreachable: the runner cannot be served; it reconnects (perhaps to another node).
            LOG.warn("could not record runner {} on this node: {}", runner.slug(), e.toString());
            session.close(1011, "the server cannot reach its database");
            return;
        }
        LOG.info("runner {} connected from {}", runner.slug(), remote);
        session.send(welcome(runner));
    }

    /** Who the runner is and what it serves, first on the connection (the runner logs it). */
    private ServerMessage.Welcome welcome(Runner runner) {
        List<String> specs;
        try {
            specs = specSets.of(runner.id()).stream()
                    .filter(spec -> spec.archived() == null)
                    .map(spec -> spec.slug().value())
                    .toList();
        } catch (RuntimeException e) {
            // Informational only: a database hiccup must not cost the runner its connection.
            LOG.warn("could not read the specs of runner {} for its welcome: {}", runner.slug(), e.toString());
            specs = List.of();
        }
        // The message limit lets the runner cut a result to fit before sending it, instead of after a
        // 1009; the read timeout lets an idle runner heartbeat seldom and still never be lost (issue 45).
        return new ServerMessage.Welcome(
                runner.slug().value(), runner.name(), specs, maxMessageBytes, heartbeatTimeout.toSeconds());
    }

    private void received(WsContext ctx, String text) {
        Optional<RunnerSession> maybe = session(ctx);
        if (maybe.isEmpty()) return;
        RunnerSession session = maybe.get();
        RunnerMessage message;
        try {
            message = Wire.decodeRunnerMessage(text);
        } catch (InvalidMessageException e) {
            // Invalid input does not count as activity and changes nothing.
            session.send(new ServerMessage.Error("invalid_message", e.getMessage()));
            return;
        }
        ServerMessage reply = switch (message) {
            case RunnerMessage.Ready r -> ready(session, r);
            case RunnerMessage.Preparing p ->
                touchAnd(session, () -> lifecycle.runningMessages().preparing(session, p));
            case RunnerMessage.Declined d ->
                touchAnd(session, () -> lifecycle.runningMessages().declined(session, d));
            case RunnerMessage.Running r ->
                touchAnd(session, () -> lifecycle.runningMessages().running(session, r));
            case RunnerMessage.Heartbeat h -> {
                session.reportImages(h.images());
                yield touchAnd(session, () -> lifecycle.runningMessages().heartbeat(session, h));
            }
            case RunnerMessage.Terminal t ->
                touchAnd(session, () -> lifecycle.finalMessages().terminal(session, t));
            case RunnerMessage.Log l ->
                touchAnd(session, () -> lifecycle.runningMessages().log(session, l));
            case RunnerMessage.PullToken p -> pullToken(session, p);
            case RunnerMessage.Calibration c -> calibration(session, c);
        };
        if (reply != null) session.send(reply);
    }

    private ServerMessage ready(RunnerSession session, RunnerMessage.Ready r) {
        PollTimeout poll;
        try {
            poll = r.pollTimeout() == null ? defaultPollTimeout : PollTimeout.of(r.pollTimeout());
        } catch (IllegalArgumentException e) {
            return new ServerMessage.Error("invalid_poll_timeout", e.getMessage());
        }
        int slots = r.slots() == null ? 1 : r.slots();
        if (slots < 1 || slots > 1024)
            return new ServerMessage.Error("invalid_slots", "slots must be between 1 and 1024, got " + slots);
        if (!knowMachine(session, r)) return null;
        if (r.capabilities() != null && session.report(r.capabilities().bounded())) {
            var c = session.capabilities().orElseThrow();
            LOG.info(
                    "runner {} runs jobs with executor {}{}{}",
                    session.runner().slug(),
                    c.executor(),
                    c.hypervisor() == null ? "" : " (" + c.hypervisor() + ", " + c.accelerator() + ")",
                    c.baselineImage() == null
                            ? ""
                            : c.baselineImage() ? ", baseline images too" : ", no baseline image");
        }
        if (session.labelsChanged(r.labels())) {
            // Before the wait starts, so this very ready already claims with the new labels.
            store.runners().setRunnerLabels(session.runnerId(), false, r.labels(), clock.instant());
            session.labelsStored(r.labels());
            LOG.info("runner {} reports labels {}", session.runner().slug(), r.labels());
        }
        // Before the wait starts too: this very ready is matched by the images it reports.
        session.reportImages(r.images());
        // A spec with a noise limit is left out of the wait of a runner too noisy for it (decision 0052).
        List<String> specs = QuietSpecs.narrow(specSets.of(session.runnerId()), r.specs(), () -> latestNoise(session));
        // A repeated ready while already waiting is not activity (brief §3): no timer reset, no reply.
        if (dispatcher.ready(session, poll, slots, specs, r.preferProjects())) touch(session);
        return null;
    }

    /**
     * A fresh pull token for an attempt this runner holds and that is still live (issue 41); a
     * lease that is not current, or a job that ended, is {@code stale}. Not activity: it does not
     * reset the read timer (the runner's {@code preparing} does).
     */
    private ServerMessage pullToken(RunnerSession session, RunnerMessage.PullToken request) {
        Optional<Job> found = store.runs().findJob(request.job());
        if (found.isEmpty()) return new ServerMessage.Error("job_not_found", "no job " + request.job());
        Job job = found.get();
        if (!job.holds(request.lease()) || job.runnerId() == null || job.runnerId() != session.runnerId()) {
            return new ServerMessage.Stale(request.job(), request.lease(), "lease is no longer current");
        }
        if (!JobPullTokens.live(job)) {
            return new ServerMessage.Stale(
                    request.job(), request.lease(), "job is " + job.status().wireName());
        }
        if (job.config().digest() == null) {
            return new ServerMessage.Error(
                    "no_image", "job " + job.uuid() + " runs a command and pulls no image:" + " it has no pull token");
        }
        var project = store.organizations().projectUuid(job.projectId()).orElseThrow();
        String token = pullTokens.issue(session.runner().uuid(), project, job, clock.instant());
        return new ServerMessage.PullToken(job.uuid(), request.lease(), token);
    }

    /** The largest CV of the runner's latest calibration, null when it has none. */
    private Double latestNoise(RunnerSession session) {
        var latest = store.noise().noiseHistory(session.runnerId(), 1);
        return latest.isEmpty() ? null : latest.get(0).maxCv();
    }

    /**
     * Stores the runner's noise calibration (decision 0052). Answered with nothing: a runner sends
     * it once per start, unasked, and a lost one is measured again at the next start. A store error
     * is logged, not answered: the runner's noise is informational to the runner itself.
     */
    private ServerMessage calibration(RunnerSession session, RunnerMessage.Calibration c) {
        var reading = RunnerNoiseReadings.of(c);
        try {
            if (store.noise().recordNoise(session.runnerId(), reading)) {
                LOG.info(
                        "runner {} reports its noise: cpu {}, memory {}, file {} (CV over {} repetitions)",
                        session.runner().slug(),
                        reading.cpuCv(),
                        reading.memoryCv(),
                        reading.fileCv(),
                        reading.repetitions());
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "could not store the noise of runner {}: {}",
                    session.runner().slug(),
                    e.toString());
        }
        return null;
    }

    /**
     * Records the machine this {@code ready} describes (issue 41) when it differs from what the
     * connection last stored, before the wait starts (so the attempts it claims carry it), then
     * checks its architecture against the runner's specs: a runner on another architecture is
     * answered {@code error} {@code wrong_architecture} and closed (4009). False when refused.
     */
    private boolean knowMachine(RunnerSession session, RunnerMessage.Ready r) {
        RunnerHost machine = r.machine(session.remoteAddress());
        if (session.machineChanged(machine)) {
            try {
                session.machineStored(store.runners().recordMachine(session.runnerId(), machine, clock.instant()));
                LOG.info(
                        "runner {} is {} {} {}, agent {} (pid {}), from {}",
                        session.runner().slug(),
                        machine.host(),
                        machine.os(),
                        machine.arch(),
                        machine.version(),
                        machine.pid(),
                        machine.address());
            } catch (RuntimeException e) {
                // Informational: a database hiccup must not cost the runner its wait; the next ready records it.
                LOG.warn(
                        "could not record the machine of runner {}: {}",
                        session.runner().slug(),
                        e.toString());
            }
        }
        String refusal =
                ArchitectureCheck.refusal(r.arch(), session.runner().slug().value(), specSets.of(session.runnerId()));
        if (refusal == null) return true;
        LOG.warn("{}: closing its channel", refusal);
        session.send(new ServerMessage.Error("wrong_architecture", refusal));
        session.close(ArchitectureCheck.CLOSE_WRONG_ARCHITECTURE, "wrong architecture for its specs");
        return false;
    }

    private ServerMessage touchAnd(RunnerSession session, java.util.function.Supplier<ServerMessage> handler) {
        touch(session);
        return handler.get();
    }

    /** A valid message: resets the read timer and marks the runner alive (written in the next batch). */
    private void touch(RunnerSession session) {
        var now = clock.instant();
        session.touch(now);
        liveness.runner(session.runnerId(), now);
    }

    private void closed(WsContext ctx) {
        session(ctx).ifPresent(session -> {
            session.markClosed();
            dispatcher.forget(session);
            if (sessions.unregister(session)) {
                LOG.info("runner {} disconnected", session.runner().slug());
                lifecycle.presence().connectionClosed(session);
            }
        });
    }

    /** Jetty's MessageTooLargeException (core or API flavour, either may reach here), by name to stay off Jetty's internals. */
    private static boolean tooLarge(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("MessageTooLargeException")) return true;
        }
        return false;
    }

    private static Optional<RunnerSession> session(WsContext ctx) {
        return Optional.ofNullable(ctx.attribute(SESSION_ATTRIBUTE));
    }
}
