package dev.baton.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BrokerSettings;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.message.Wire;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import dev.baton.web.http.ErrorHandling;
import io.javalin.Javalin;
import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Operating the broker (issue 40), on real nats-servers started from a config file as
 * docs/operations.md says: JetStream itself on /ready and /metrics and a rate-limited WARN while
 * offers cannot be published (nats-server 2.9 shuts JetStream down on a config reload when it was
 * switched on by {@code -js -sd} rather than in the file); the file's {@code jetstream} block
 * surviving that reload; the server's own user from an nkey seed file; and no NATS password in
 * the log. SQLite; the fixture's clock, moved by hand, is the pump's.
 */
@Tag("nats")
class JetStreamHealthTest {
    private static final String SERVER_USER = "authorization {\n  users = [\n"
            + "    { user: \"baton-server\", password: \"s3cret-pw\", permissions: { publish: [\">\"], subscribe: [\">\"] } }\n"
            + "    { user: \"test\", password: \"test\" }\n  ]\n}\n";

    @TempDir
    Path dataDir;

    NatsServerProcess nats;
    ChannelFixture server;
    NatsLeaseTransport transport;
    BatonMetrics metrics;
    Javalin http;
    Spec spec;
    final HttpClient web = HttpClient.newHttpClient();
    final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeAll
    static void requireNats() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping transport A");
    }

    @BeforeEach
    void captureLogs() {
        logs.start();
        root.addAppender(logs);
    }

    @AfterEach
    void stop() throws Exception {
        root.detachAppender(logs);
        if (http != null) http.stop();
        if (transport != null) transport.close();
        if (server != null) server.close();
        if (nats != null) nats.close();
    }

    /** The server of transport A on {@code nats}, as {@code natsUrl} (with or without userinfo) and {@code credentials} say. */
    void startBaton(String natsUrl, String credentials) {
        server = new ChannelFixture(
                null,
                dataDir,
                c -> c.toBuilder()
                        .broker(new BrokerSettings(
                                natsUrl, "websocket", Set.of("x86-small"), Duration.ofSeconds(120), credentials))
                        .build());
        spec = server.spec("x86 small");
        metrics = new BatonMetrics();
        transport = new NatsLeaseTransport(
                server.config,
                server.store,
                server.clock,
                server.channel(),
                (pull, now) -> "pull-token-for-" + pull.project(),
                metrics,
                null);
        var health = new dev.baton.web.http.HealthRoutes(server.store);
        health.report(transport);
        http = Javalin.create(cfg -> {
                    new ErrorHandling().addRoutes(cfg);
                    health.addRoutes(cfg);
                    transport.addRoutes(cfg);
                })
                .start("127.0.0.1", 0);
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> transport.broker().connected());
    }

    String passwordUrl() {
        return "nats://baton-server:s3cret-pw@127.0.0.1:" + nats.port();
    }

    JsonNode broker() throws Exception {
        HttpResponse<String> r = web.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/ready"))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode())
                .as("the broker never makes the node unready (decision 0025): " + r.body())
                .isEqualTo(200);
        return Wire.mapper().readTree(r.body()).get("broker");
    }

    double jetStreamGauge() {
        var gauge = metrics.registry().find("baton.broker.jetstream.available").gauge();
        assertThat(gauge).as("baton_broker_jetstream_available on /metrics").isNotNull();
        return gauge.value();
    }

    List<String> warnings() {
        return logs.list.stream()
                .filter(e -> e.getLevel() == Level.WARN && e.getLoggerName().startsWith("dev.baton"))
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    JsonNode pullOne(Connection client) throws Exception {
        JetStreamSubscription sub = client.jetStream()
                .subscribe(
                        NatsBroker.leaseSubject("x86-small"),
                        PullSubscribeOptions.builder().stream(NatsBroker.STREAM)
                                .durable(NatsBroker.consumer("x86-small"))
                                .build());
        List<Message> got = sub.fetch(1, Duration.ofSeconds(10));
        assertThat(got).as("an offer on the spec's queue").hasSize(1);
        got.getFirst().ack();
        return Wire.mapper().readTree(new String(got.getFirst().getData(), StandardCharsets.UTF_8));
    }

    Connection client() throws Exception {
        return Nats.connect(new Options.Builder()
                .server(nats.url())
                .userInfo("test", "test")
                .build());
    }

    @Test
    void aReloadThatShutsJetStreamDownIsReportedAndWarnedOfOncePerMinute() throws Exception {
        nats = new NatsServerProcess(dataDir.resolve("nats"), NatsServerProcess.JetStreamIn.COMMAND_LINE, SERVER_USER);
        startBaton(passwordUrl(), null);
        transport.pump();
        assertThat(broker().get("jetstream").asText()).isEqualTo("available");
        assertThat(jetStreamGauge()).isEqualTo(1.0);

        // A runner's specs changed: the user block is written again and nats-server reloaded, as the docs say.
        nats.reload();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> nats.log().contains("JetStream Shutdown"));
        assertThat(broker().get("connected").asBoolean())
                .as("the connection alone still looks fine")
                .isTrue();

        Job job = server.submit(spec);
        for (int i = 0; i < 5; i++) {
            assertThat(transport.pump()).as("nothing can be published").isZero();
            server.clock.advance(Duration.ofSeconds(10));
        }
        assertThat(server.store.leaseOffers().unpublished(10))
                .singleElement()
                .satisfies(o -> assertThat(o.job()).isEqualTo(job.uuid()));
        JsonNode broker = broker();
        assertThat(broker.get("jetstream").asText()).as(broker.toString()).isEqualTo("unavailable");
        assertThat(broker.get("jetstream_error").asText()).isNotBlank();
        assertThat(jetStreamGauge()).isEqualTo(0.0);
        assertThat(warnings())
                .as("one WARN for the first minute of failing rounds, not one per round")
                .hasSize(1)
                .allSatisfy(w -> assertThat(w).contains("cannot be published").contains("JetStream"));

        server.clock.advance(Duration.ofSeconds(15));
        transport.pump();
        assertThat(warnings()).as("another once a minute has passed").hasSize(2);
    }

    @Test
    void jetStreamInTheConfigFileSurvivesAReloadAndOffersKeepFlowing() throws Exception {
        nats = new NatsServerProcess(dataDir.resolve("nats"), NatsServerProcess.JetStreamIn.CONFIG_FILE, SERVER_USER);
        startBaton(passwordUrl(), null);
        transport.pump();
        nats.rewrite(SERVER_USER.replace(
                "{ user: \"test\", password: \"test\" }",
                "{ user: \"test\", password: \"test\" }\n    { user: \"x\", password: \"y\" }"));
        nats.reload();
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> nats.log().contains("Reloaded server configuration"));

        Job job = server.submit(spec);
        server.clock.advance(Duration.ofSeconds(10));
        transport.pump();
        try (Connection client = client()) {
            assertThat(pullOne(client).get("job_id").asText())
                    .isEqualTo(job.uuid().toString());
        }
        assertThat(nats.log()).doesNotContain("JetStream Shutdown");
        assertThat(broker().get("jetstream").asText()).isEqualTo("available");
        assertThat(warnings()).noneMatch(w -> w.contains("cannot be published"));
    }

    @Test
    void theNatsPasswordIsNeverLogged() throws Exception {
        nats = new NatsServerProcess(dataDir.resolve("nats"), NatsServerProcess.JetStreamIn.CONFIG_FILE, SERVER_USER);
        startBaton(passwordUrl(), null);
        transport.pump();
        assertThat(logs.list)
                .as("transport A's start is logged")
                .anyMatch(e -> e.getFormattedMessage().contains("leases offered on NATS"));
        assertThat(logs.list).noneMatch(e -> e.getFormattedMessage().contains("s3cret-pw"));
        assertThat(server.config.broker().toString()).doesNotContain("s3cret-pw");
    }

    @Test
    void theServerAuthenticatesWithAnNkeySeedFile() throws Exception {
        NKey key = NKey.createUser(new SecureRandom());
        Path seed = dataDir.resolve("baton-server.nk");
        Files.writeString(seed, new String(key.getSeed()) + "\n");
        nats = new NatsServerProcess(
                dataDir.resolve("nats"),
                NatsServerProcess.JetStreamIn.CONFIG_FILE,
                "authorization {\n  users = [\n"
                        + "    { nkey: \"" + new String(key.getPublicKey())
                        + "\", permissions: { publish: [\">\"], subscribe: [\">\"] } }\n"
                        + "    { user: \"test\", password: \"test\" }\n  ]\n}\n");
        startBaton(nats.url(), seed.toString());
        Job job = server.submit(spec);
        transport.pump();
        try (Connection client = client()) {
            assertThat(pullOne(client).get("job_id").asText())
                    .isEqualTo(job.uuid().toString());
        }
        assertThat(logs.list).noneMatch(e -> e.getFormattedMessage().contains(new String(key.getSeed())));
    }
}
