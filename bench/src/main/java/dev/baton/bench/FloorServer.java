package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.baton.dispatch.channel.ChannelRoutes;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.InvalidMessageException;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.BodyLimit;
import dev.baton.web.http.ErrorHandling;
import dev.baton.web.http.Json;
import dev.baton.web.http.JsonErrorHandler;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.websocket.WsContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The transport floor's server (issue 13): Javalin on Jetty built as {@code BatonServer} builds
 * it (virtual threads, the same request and WebSocket bounds, the same JSON error mapping and
 * body-limit filter) serving only the traffic of one job's lifecycle, with no store and no Baton
 * server logic. {@code POST /v0/run} reads and decodes the body with the server's own
 * {@link Json} into the server's own request record and answers 201 with a copy of a real answer
 * (new uuids); the runner channel decodes every message with {@link Wire#decodeRunnerMessage},
 * answers {@code ready} with a {@code job} built from a real one when a job is queued in memory,
 * and acks {@code running} and {@code completed}. A job counts as done when its
 * {@code completed} arrives. Authentication is a string comparison of the bearer header.
 */
final class FloorServer implements LifecycleThroughput.Target, AutoCloseable {
    /**
     * The server's body of {@code POST /v0/run}: package-private there, so found by name; the
     * floor then decodes exactly what the server decodes, strict mapper included.
     */
    private static final Class<?> RUN_REQUEST = runRequestClass();

    private static final String SESSION = "floor.session";
    private static final String SLUG = "floor.slug";

    /** What the floor answers with: a real {@code POST /v0/run} answer and a real {@code job}, from the real server. */
    record Sample(JsonNode runAnswer, ClaimedJob job) {
        String jobUuid() {
            return job.uuid().value().toString();
        }
    }

    /** One runner connection: its sends are serialized as RunnerSession serializes them; {@code wanted} counts its waiting slots. */
    private static final class Session {
        final WsContext ctx;
        final String slug;
        final ReentrantLock sendLock = new ReentrantLock();
        int wanted; // guarded by the floor's queue lock
        boolean queued;

        Session(WsContext ctx, String slug) {
            this.ctx = ctx;
            this.slug = slug;
        }

        void send(ServerMessage message) {
            String json = Wire.encode(message);
            sendLock.lock();
            try {
                ctx.send(json);
            } catch (RuntimeException e) {
                // as the real server: a failing connection is not the sender's problem
            } finally {
                sendLock.unlock();
            }
        }
    }

    private final Sample sample;
    private final long maxBytes;
    private final String admin = "Bearer " + UUID.randomUUID();
    private final Map<String, String> runnerKeys = new ConcurrentHashMap<>(); // slug → expected Authorization header
    private final Map<JobUuid, Boolean> dispatched = new ConcurrentHashMap<>();
    private final Object queueLock = new Object();
    private final ArrayDeque<JobUuid> queued = new ArrayDeque<>();
    private final ArrayDeque<Session> waiting = new ArrayDeque<>();
    private final AtomicLong processed = new AtomicLong();
    private volatile long lastProcessedNanos;
    private final HttpClient http = BenchServer.newHttpClient();
    private final Javalin app;

    private FloorServer(Sample sample, long maxBytes) {
        this.sample = sample;
        this.maxBytes = maxBytes;
        ErrorHandling errors = new ErrorHandling();
        BodyLimit bodyLimit = new BodyLimit(maxBytes);
        this.app = Javalin.create(cfg -> {
            // As BatonServer and ChannelRoutes configure them.
            cfg.concurrency.useVirtualThreads = true;
            cfg.startup.showJavalinBanner = false;
            cfg.jetty.host = "127.0.0.1";
            cfg.jetty.port = 0;
            cfg.http.maxRequestSize = maxBytes;
            cfg.jetty.modifyServer(server -> {
                server.setStopTimeout(10_000);
                server.setErrorHandler(new JsonErrorHandler());
            });
            cfg.jetty.modifyWebSocketServletFactory(factory -> {
                factory.setMaxTextMessageSize(maxBytes);
                factory.setMaxBinaryMessageSize(maxBytes);
                factory.setMaxFrameSize(maxBytes);
                factory.setIdleTimeout(Duration.ofMinutes(5));
            });
            errors.addRoutes(cfg);
            bodyLimit.addRoutes(cfg);
            cfg.routes.post("/v0/run", this::run);
            cfg.routes.wsBeforeUpgrade(ChannelRoutes.PATH, this::authenticate);
            cfg.routes.ws(ChannelRoutes.PATH, ws -> {
                ws.onConnect(this::connected);
                ws.onMessage(ctx -> received(ctx, ctx.message()));
                ws.onClose(this::closed);
            });
        });
        app.start();
    }

    /** Starts on 127.0.0.1 and an ephemeral port; {@code maxBytes} as request_body_max_bytes. */
    static FloorServer start(Sample sample, long maxBytes) {
        return new FloorServer(sample, maxBytes);
    }

    private String baseUrl() {
        return "http://127.0.0.1:" + app.port();
    }

    private void run(Context ctx) {
        Json.decode(
                Json.readBody(ctx, maxBytes), RUN_REQUEST); // decoded as the server decodes it; nothing is validated
        if (!admin.equals(ctx.header("Authorization")))
            throw new ApiException(401, "unauthorized", "admin token required");
        JobUuid job = JobUuid.random();
        submitted(job);
        Json.write(
                ctx,
                201,
                answer(sample.runAnswer(), sample.jobUuid(), job.value().toString()));
    }

    /** A fresh copy of the real answer with this job's uuid where the sample's was (Jackson encodes a tree of the same shape and size). */
    private static JsonNode answer(JsonNode node, String from, String to) {
        if (node instanceof ObjectNode o) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            o.properties().forEach(e -> copy.set(e.getKey(), answer(e.getValue(), from, to)));
            return copy;
        }
        if (node instanceof ArrayNode a) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode(a.size());
            a.forEach(e -> copy.add(answer(e, from, to)));
            return copy;
        }
        return node.isTextual() && node.asText().equals(from) ? TextNode.valueOf(to) : node;
    }

    /** A queued job goes to the first waiting runner slot, else waits for a {@code ready}. */
    private void submitted(JobUuid job) {
        Session to;
        synchronized (queueLock) {
            to = takeWaiting();
            if (to == null) {
                queued.addLast(job);
                return;
            }
        }
        dispatch(to, job);
    }

    private Session takeWaiting() {
        Session s = waiting.pollFirst();
        if (s == null) return null;
        if (--s.wanted > 0) waiting.addLast(s);
        else s.queued = false;
        return s;
    }

    private void ready(Session session, int slots) {
        List<JobUuid> jobs = new java.util.ArrayList<>();
        synchronized (queueLock) {
            // A ready states how many slots wait now; as in the real server it replaces an earlier one.
            session.wanted = slots;
            while (session.wanted > 0 && !queued.isEmpty()) {
                jobs.add(queued.pollFirst());
                session.wanted--;
            }
            if (session.wanted > 0 && !session.queued) {
                session.queued = true;
                waiting.addLast(session);
            }
        }
        for (JobUuid job : jobs) dispatch(session, job);
    }

    private void dispatch(Session session, JobUuid job) {
        ClaimedJob s = sample.job();
        dispatched.put(job, Boolean.TRUE);
        session.send(new ServerMessage.Job(new ClaimedJob(
                job, LeaseId.random(), 1, s.spec(), s.config(), s.ociToken(), s.timeout(), Instant.now())));
    }

    private void authenticate(Context ctx) {
        String slug = ctx.pathParam("runner");
        String expected = runnerKeys.get(slug);
        if (expected == null || !expected.equals(ctx.header("Authorization"))) {
            ctx.res().setStatus(401);
            throw new ApiException(401, "unauthorized", "unknown runner or wrong key");
        }
        ctx.attribute(SLUG, slug);
    }

    private void connected(WsContext ctx) {
        String slug = ctx.attribute(SLUG);
        Session session = new Session(ctx, slug);
        ctx.attribute(SESSION, session);
        session.send(new ServerMessage.Welcome(
                slug, slug, List.of(sample.job().spec().slug())));
    }

    private void received(WsContext ctx, String text) {
        Session session = ctx.attribute(SESSION);
        if (session == null) return;
        RunnerMessage message;
        try {
            message = Wire.decodeRunnerMessage(text);
        } catch (InvalidMessageException e) {
            session.send(new ServerMessage.Error("invalid_message", e.getMessage()));
            return;
        }
        switch (message) {
            case RunnerMessage.Ready r -> ready(session, r.slots() == null ? 1 : r.slots());
            case RunnerMessage.Running r -> session.send(new ServerMessage.Ack(r.job()));
            case RunnerMessage.Completed c -> {
                session.send(new ServerMessage.Ack(c.job()));
                if (dispatched.remove(c.job()) != null) {
                    lastProcessedNanos = System.nanoTime();
                    processed.incrementAndGet();
                }
            }
            default ->
                session.send(new ServerMessage.Error(
                        "unsupported", "the transport floor serves ready, running and completed only"));
        }
    }

    private void closed(WsContext ctx) {
        Session session = ctx.attribute(SESSION);
        if (session == null) return;
        synchronized (queueLock) {
            waiting.remove(session);
            session.queued = false;
        }
    }

    @Override
    public void createSpec(String slug) {
        // Nothing to create: the floor serves one queue, whatever the spec.
    }

    @Override
    public BenchServer.Credentials createRunner(String name, String spec) {
        String slug = "floor-" + runnerKeys.size() + "-"
                + UUID.randomUUID().toString().substring(0, 8);
        String key = UUID.randomUUID().toString();
        runnerKeys.put(slug, "Bearer " + key);
        return new BenchServer.Credentials(slug, key);
    }

    @Override
    public URI channel(String slug) {
        return URI.create("ws://127.0.0.1:" + app.port() + "/v0/runners/" + slug + "/channel");
    }

    @Override
    public String submit(String spec) {
        return BenchServer.post(
                        http, baseUrl(), admin.substring("Bearer ".length()), "/v0/run", BenchServer.runBody(spec))
                .at("/job/uuid")
                .asText();
    }

    @Override
    public long processed() {
        return processed.get();
    }

    @Override
    public long lastProcessedNanos() {
        return lastProcessedNanos;
    }

    @Override
    public long storeWrites() {
        return 0;
    }

    @Override
    public long storeReads() {
        return 0;
    }

    @Override
    public Map<String, Long> storeReadsByMethod() {
        return Map.of();
    }

    @Override
    public void close() {
        http.shutdownNow();
        app.stop();
    }

    private static Class<?> runRequestClass() {
        try {
            return Class.forName("dev.baton.api.RunRequest");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(
                    "the server's RunRequest moved; the transport floor decodes the same class", e);
        }
    }
}
