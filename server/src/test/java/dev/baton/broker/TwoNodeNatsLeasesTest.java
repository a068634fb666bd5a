package dev.baton.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BrokerSettings;
import dev.baton.core.config.ServerConfig;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.channel.RunnerChannel;
import dev.baton.dispatch.output.DirectoryOutputStore;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.Wire;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.TestDatabases;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.LeaseOffer;
import dev.baton.store.LeaseOffers;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.token.PullTokens;
import dev.baton.web.http.ErrorHandling;
import io.javalin.Javalin;
import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.ConsumerConfiguration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transport A on two server nodes sharing one PostgreSQL schema and one nats-server: node A is the
 * fixture's (its store, runner channel and lease routes), node B has a store, runner channel,
 * cluster bus and lease routes of its own. A runner's messages go to whichever node a balancer
 * picked, so AckLease reaches one node and Heartbeat and Complete the other. Neither node has a
 * timed round of the lease pump: only wake-ups and the test's own rounds run it. Time is the
 * fixture's clock, which both nodes read.
 */
@Tag("postgres")
@Tag("nats")
class TwoNodeNatsLeasesTest {
    static final PullTokens TOKENS = (pull, now) -> "pull-token-for-" + pull.project();

    @TempDir
    Path dataDir;

    NatsServerProcess nats;
    ChannelFixture nodeA;
    Store storeB;
    ServerConfig configB;
    RunnerChannel channelB;
    NatsLeaseTransport transportA;
    NatsLeaseTransport transportB;
    Javalin httpA;
    Javalin httpB;
    Spec spec;
    Connection client;
    final HttpClient web = HttpClient.newHttpClient();

    @BeforeAll
    static void requireNatsAndPostgres() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping transport A");
        assumeTrue(TestDatabases.postgresReachable(), "PostgreSQL not reachable at " + TestDatabases.PG_HOST_URL);
    }

    @BeforeEach
    void start() throws Exception {
        String databaseUrl = TestDatabases.freshPostgresSchema();
        nats = new NatsServerProcess(dataDir.resolve("nats"));
        nodeA = new ChannelFixture(
                databaseUrl,
                dataDir,
                c -> c.toBuilder()
                        .nodeId("node-a")
                        .broker(new BrokerSettings(
                                nats.url(), "websocket", Set.of("x86-small"), Duration.ofSeconds(120)))
                        .build());
        spec = nodeA.spec("x86 small");
        configB = nodeA.config.toBuilder().nodeId("node-b").build();
        storeB = StoreFactory.open(databaseUrl, dataDir);
        channelB = new RunnerChannel(
                storeB,
                configB,
                nodeA.clock,
                TOKENS,
                new DirectoryOutputStore(dataDir.resolve("storage")),
                new BatonMetrics());
        channelB.start();
        transportA = new NatsLeaseTransport(
                nodeA.config, nodeA.store, nodeA.clock, nodeA.channel(), TOKENS, new BatonMetrics(), null);
        transportB = new NatsLeaseTransport(configB, storeB, nodeA.clock, channelB, TOKENS, new BatonMetrics(), null);
        httpA = http(transportA);
        httpB = http(transportB);
        client = Nats.connect(nats.url());
    }

    private static Javalin http(NatsLeaseTransport transport) {
        return Javalin.create(cfg -> {
                    new ErrorHandling().addRoutes(cfg);
                    transport.addRoutes(cfg);
                })
                .start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.close();
        for (Javalin h : new Javalin[] {httpA, httpB}) if (h != null) h.stop();
        for (NatsLeaseTransport t : new NatsLeaseTransport[] {transportA, transportB}) if (t != null) t.close();
        if (channelB != null) channelB.close();
        if (storeB != null) storeB.close();
        if (nodeA != null) nodeA.close();
        if (nats != null) nats.close();
    }

    JetStreamSubscription pull() throws Exception {
        transportA.broker().ensureStream();
        return client.jetStream()
                .subscribe(
                        NatsBroker.leaseSubject("x86-small"),
                        PullSubscribeOptions.builder()
                                .durable("baton-x86-small")
                                .configuration(ConsumerConfiguration.builder()
                                        .ackWait(Duration.ofSeconds(30))
                                        .build())
                                .build());
    }

    static JsonNode next(JetStreamSubscription sub) throws Exception {
        List<Message> got = sub.fetch(1, Duration.ofSeconds(10));
        assertThat(got).as("a LeaseGranted on the spec's queue").hasSize(1);
        got.getFirst().ack();
        return Wire.mapper().readTree(new String(got.getFirst().getData(), StandardCharsets.UTF_8));
    }

    JsonNode post(Javalin node, ChannelFixture.RunnerHandle runner, String what, Map<String, Object> body)
            throws Exception {
        HttpResponse<String> r = web.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + "/v0/runners/"
                                + runner.runner().slug().value() + "/leases/" + what))
                        .header("Authorization", "Bearer " + runner.key())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Wire.mapper().readTree(r.body());
    }

    JsonNode ack(Javalin node, ChannelFixture.RunnerHandle runner, JsonNode granted) throws Exception {
        return post(
                node,
                runner,
                "ack",
                Map.of(
                        "type",
                        "AckLease",
                        "job_id",
                        granted.get("job_id").asText(),
                        "lease_id",
                        granted.get("lease_id").asText(),
                        "runner_id",
                        runner.runner().slug().value(),
                        "accepted_at",
                        nodeA.clock.instant().toString()));
    }

    JsonNode heartbeat(Javalin node, ChannelFixture.RunnerHandle runner, String lease) throws Exception {
        return post(
                node,
                runner,
                "heartbeat",
                Map.of(
                        "type",
                        "Heartbeat",
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.runner().slug().value(),
                        "ts",
                        nodeA.clock.instant().toString()));
    }

    JsonNode complete(Javalin node, ChannelFixture.RunnerHandle runner, String lease) throws Exception {
        return post(
                node,
                runner,
                "complete",
                Map.of(
                        "type",
                        "Complete",
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.runner().slug().value(),
                        "status",
                        "SUCCEEDED",
                        "exit_code",
                        0,
                        "summary",
                        "done",
                        "results",
                        List.of(Map.of(
                                "exit_code", 0, "stdout", "{\"sort\":{\"latency\":{\"value\":1.5}}}", "stderr", ""))));
    }

    @Test
    void ackLeaseOnOneNodeAndHeartbeatsAndCompleteOnTheOther() throws Exception {
        JetStreamSubscription sub = pull();
        Job job = nodeA.submit(spec);
        JsonNode granted = next(sub);
        String lease = granted.get("lease_id").asText();
        var runner = nodeA.runner(spec);

        assertThat(ack(httpA, runner, granted).get("type").asText()).isEqualTo("LeaseAccepted");
        nodeA.clock.advance(Duration.ofSeconds(20));
        JsonNode hb = heartbeat(httpB, runner, lease);
        assertThat(hb.get("type").asText()).isEqualTo("HeartbeatAck");
        assertThat(hb.get("extend_lease").asBoolean()).isTrue();
        nodeA.clock.advance(Duration.ofSeconds(100)); // 120 s after AckLease: alive only because node B renewed it
        transportA.pump();
        transportB.pump();
        assertThat(nodeA.job(job).status()).isEqualTo(JobStatus.RUNNING);

        JsonNode done = complete(httpB, runner, lease);
        assertThat(done.get("accepted").asBoolean()).isTrue();
        assertThat(complete(httpA, runner, lease).get("accepted").asBoolean())
                .as("a resent Complete, to the other node: answered as the first")
                .isTrue();

        // Node A, where the attempt began, acts on none of its own deadlines for it afterwards.
        nodeA.clock.advance(Duration.ofMinutes(30));
        nodeA.channel().runDueDeadlines();
        channelB.runDueDeadlines();
        transportA.pump();
        transportB.pump();
        Job after = nodeA.job(job);
        assertThat(after.status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        assertThat(nodeA.store.runs().attempts(after.id()))
                .singleElement()
                .satisfies(at -> assertThat(at.outcome()).isEqualTo(AttemptOutcome.COMPLETED));
        assertThat(heartbeat(httpA, runner, lease).get("type").asText()).isEqualTo("StaleLease");
    }

    @Test
    void aLeaseBoundOnOneNodeExpiresOnTheOtherAndItsLateCompleteIsStaleOnBoth() throws Exception {
        JetStreamSubscription sub = pull();
        // Only a job that opted in goes back to the queue once it started (brief §1).
        Job job = nodeA.submit(spec, new dev.baton.store.RetryPolicy(2, 0, true));
        JsonNode granted = next(sub);
        String lease = granted.get("lease_id").asText();
        var runner = nodeA.runner(spec);
        assertThat(ack(httpA, runner, granted).get("type").asText()).isEqualTo("LeaseAccepted");

        nodeA.clock.advance(Duration.ofSeconds(121));
        transportB.pump(); // node B expires it: the job is pending again, offered under a new lease
        assertThat(nodeA.job(job).status()).isEqualTo(JobStatus.PENDING);
        JsonNode again = next(sub);
        assertThat(again.get("job_id").asText()).isEqualTo(job.uuid().toString());
        assertThat(again.get("lease_id").asText()).isNotEqualTo(lease);

        for (Javalin node : new Javalin[] {httpA, httpB}) {
            JsonNode late = complete(node, runner, lease);
            assertThat(late.get("type").asText()).isEqualTo("StaleLease");
            assertThat(late.get("reason").asText()).isEqualTo("LEASE_EXPIRED");
        }
        assertThat(nodeA.job(job).status()).isEqualTo(JobStatus.PENDING);
        assertThat(ack(httpB, runner, again).get("type").asText()).isEqualTo("LeaseAccepted");
        assertThat(complete(httpA, runner, again.get("lease_id").asText())
                        .get("accepted")
                        .asBoolean())
                .isTrue();
        assertThat(nodeA.job(job).status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
    }

    /**
     * Node A's pump claimed an offer, published it and died before marking it published. Node B's
     * pump leaves the offer alone while A's claim lasts, then publishes it again; the stream keeps
     * it once (the lease is the message id), and the job runs once.
     */
    @Test
    void anOfferClaimedByANodeThatDiedBeforeMarkingItIsPublishedAgainByAnotherAndStoredOnce() throws Exception {
        JetStreamSubscription sub = pull();
        for (NatsLeaseTransport t : new NatsLeaseTransport[] {transportA, transportB})
            t.close(); // no pump runs until the test starts one
        transportA = null;
        Job job = nodeA.submit(spec);
        Instant now = nodeA.clock.instant();
        // Node A, as its pump does: grants the offer (claimed for its pump), publishes it with the
        // lease as message id, and dies before the mark.
        LeaseOffer offer = nodeA.store
                .leaseOffers()
                .grant(
                        Set.of(spec.id()),
                        now,
                        now.plus(ChannelFixture.ACCEPTANCE_TIMEOUT),
                        now.plus(LeasePump.PUBLISH_CLAIM),
                        10,
                        (j, lease) -> new LeaseOffers.Message(
                                NatsBroker.leaseSubject("x86-small"),
                                Wire.encode(Map.of(
                                        "type",
                                        "LeaseGranted",
                                        "job_id",
                                        j.uuid().toString(),
                                        "lease_id",
                                        lease.value()))))
                .getFirst();
        client.jetStream()
                .publish(io.nats.client.impl.NatsMessage.builder()
                        .subject(offer.subject())
                        .headers(new io.nats.client.impl.Headers()
                                .add("Nats-Msg-Id", offer.lease().value()))
                        .data(offer.payload(), StandardCharsets.UTF_8)
                        .build());

        transportB = new NatsLeaseTransport(configB, storeB, nodeA.clock, channelB, TOKENS, new BatonMetrics(), null);
        // Checked on the outbox, not on what this round returns: a round that a wake-up queued on
        // node B's loop (a job change it heard of) may run first and publish instead; pump() runs
        // after any round already queued, so the outbox says what node B has done by then.
        transportB.pump();
        assertThat(nodeA.store.leaseOffers().unpublished(10))
                .as("node A's claim keeps node B off the offer")
                .extracting(LeaseOffer::lease)
                .containsExactly(offer.lease());
        nodeA.clock.advance(LeasePump.PUBLISH_CLAIM.plusSeconds(1));
        transportB.pump();
        assertThat(nodeA.store.leaseOffers().unpublished(10))
                .as("published again once the claim passed")
                .isEmpty();

        JsonNode granted = next(sub);
        assertThat(granted.get("lease_id").asText()).isEqualTo(offer.lease().value());
        assertThat(sub.fetch(1, Duration.ofSeconds(1)))
                .as("the stream stored the repeat once")
                .isEmpty();
        var runner = nodeA.runner(spec);
        assertThat(ack(httpB, runner, granted).get("type").asText()).isEqualTo("LeaseAccepted");
        assertThat(complete(httpA, runner, offer.lease().value())
                        .get("accepted")
                        .asBoolean())
                .isTrue();
        assertThat(nodeA.store.runs().attempts(nodeA.job(job).id()))
                .as("run once")
                .hasSize(1);
    }

    @Test
    void aJobSubmittedOnANodeWithoutTheBrokerIsOfferedByAnotherAtOnce() throws Exception {
        JetStreamSubscription sub = pull();
        transportA.close(); // node A no longer offers; node B hears of the job over the cluster bus
        transportA = null;
        Job job = nodeA.submit(spec);
        assertThat(next(sub).get("job_id").asText()).isEqualTo(job.uuid().toString());
    }
}
