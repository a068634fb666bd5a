package dev.baton.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BrokerSettings;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.Wire;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.store.AttemptEnd;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.FailureKind;
import dev.baton.store.Job;
import dev.baton.store.NotRetried;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.web.http.ErrorHandling;
import io.javalin.Javalin;
import io.nats.client.Connection;
import io.nats.client.JetStream;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.Subscription;
import io.nats.client.api.ConsumerConfiguration;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
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
 * Transport A end to end against a real nats-server (one per test, on a free port) and the real
 * store: offers from the outbox on the spec's JetStream work queue, runners pulling them, and
 * AckLease, Heartbeat, Complete and CancelAck over HTTP with the runner key. Time is the
 * fixture's clock, moved by hand; the pump has no timed round here: a job becoming pending wakes
 * it, and the test runs a round after each move of the clock.
 */
@Tag("nats")
abstract class NatsLeasesContract {
    @TempDir
    Path dataDir;

    NatsServerProcess nats;
    ChannelFixture server;
    NatsLeaseTransport transport;
    Javalin http;
    Spec spec;
    Connection client;
    final HttpClient web = HttpClient.newHttpClient();

    abstract String databaseUrl(Path dataDir);

    @BeforeAll
    static void requireNats() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping transport A");
    }

    @BeforeEach
    void start() throws Exception {
        nats = new NatsServerProcess(dataDir.resolve("nats"));
        server = new ChannelFixture(
                databaseUrl(dataDir),
                dataDir,
                c -> c.toBuilder()
                        .broker(new BrokerSettings(
                                nats.url(), "websocket", Set.of("x86-small"), Duration.ofSeconds(120)))
                        .build());
        spec = server.spec("x86 small");
        transport = new NatsLeaseTransport(
                server.config,
                server.store,
                server.clock,
                server.channel(),
                (pull, now) -> "pull-token-for-" + pull.project(),
                new BatonMetrics(),
                null);
        var health = new dev.baton.web.http.HealthRoutes(server.store);
        health.report(transport);
        http = Javalin.create(cfg -> {
                    new ErrorHandling().addRoutes(cfg);
                    health.addRoutes(cfg);
                    transport.addRoutes(cfg);
                })
                .start("127.0.0.1", 0);
        client = Nats.connect(nats.url());
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) client.close();
        if (http != null) http.stop();
        if (transport != null) transport.close();
        if (server != null) server.close();
        if (nats != null) nats.close();
    }

    // ---- a runner of the seed, in the test ------------------------------------------------------

    /** The spec's shared pull consumer (a work-queue stream allows one consumer per subject). */
    JetStreamSubscription pull() throws Exception {
        JetStream js = client.jetStream();
        return js.subscribe(
                NatsBroker.leaseSubject("x86-small"),
                PullSubscribeOptions.builder()
                        .durable("baton-x86-small")
                        .configuration(ConsumerConfiguration.builder()
                                .ackWait(Duration.ofSeconds(30))
                                .build())
                        .build());
    }

    Message next(JetStreamSubscription sub) {
        List<Message> got = sub.fetch(1, Duration.ofSeconds(10));
        assertThat(got).as("a LeaseGranted on the spec's queue").hasSize(1);
        return got.getFirst();
    }

    static JsonNode json(Message m) throws Exception {
        return Wire.mapper().readTree(new String(m.getData(), StandardCharsets.UTF_8));
    }

    JsonNode post(ChannelFixture.RunnerHandle runner, String what, Map<String, Object> body) throws Exception {
        HttpResponse<String> r = web.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/v0/runners/"
                                + runner.runner().slug().value() + "/leases/" + what))
                        .header("Authorization", "Bearer " + runner.key())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode answer = Wire.mapper().readTree(r.body());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return answer;
    }

    JsonNode ack(ChannelFixture.RunnerHandle runner, String lease, String job) throws Exception {
        return post(
                runner,
                "ack",
                Map.of(
                        "type",
                        "AckLease",
                        "job_id",
                        job,
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.runner().slug().value(),
                        "accepted_at",
                        server.clock.instant().toString()));
    }

    JsonNode heartbeat(ChannelFixture.RunnerHandle runner, String lease) throws Exception {
        return post(
                runner,
                "heartbeat",
                Map.of(
                        "type",
                        "Heartbeat",
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.runner().slug().value(),
                        "progress",
                        Map.of("percent", 50, "message", "halfway"),
                        "ts",
                        server.clock.instant().toString()));
    }

    JsonNode complete(ChannelFixture.RunnerHandle runner, String lease, String status, int exit) throws Exception {
        return post(
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
                        status,
                        "exit_code",
                        exit,
                        "summary",
                        "done",
                        "results",
                        List.of(Map.of(
                                "exit_code",
                                exit,
                                "stdout",
                                "{\"sort\":{\"latency\":{\"value\":1.5}}}",
                                "stderr",
                                ""))));
    }

    JsonNode failed(ChannelFixture.RunnerHandle runner, String lease, Integer exit, String failure) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>(Map.of(
                "type",
                "Complete",
                "lease_id",
                lease,
                "runner_id",
                runner.runner().slug().value(),
                "status",
                "FAILED",
                "summary",
                "failed: " + failure,
                "failure",
                failure));
        if (exit != null) {
            body.put("exit_code", exit);
            body.put("results", List.of(Map.of("exit_code", exit, "stdout", "", "stderr", "")));
        }
        return post(runner, "complete", body);
    }

    // ---- the tests ----------------------------------------------------------------------------------

    /** Transport A's failures are classified as the channel's (issue 41): a pull failure is infrastructure, exit 1 the job's. */
    @Test
    void aPullFailureIsRetriedUnderRetryOnInfrastructureAndTheBenchmarksExitIsNot() throws Exception {
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        Job job = server.submit(spec, new RetryPolicy(3, 0, Set.of(FailureKind.INFRASTRUCTURE), Set.of()));
        var runner = server.runner(spec);
        Message first = next(sub);
        first.ack();
        String lease = json(first).get("lease_id").asText();
        ack(runner, lease, job.uuid().toString());
        assertThat(failed(runner, lease, null, "pull_failed").get("type").asText())
                .isEqualTo("CompleteAck");
        assertThat(server.job(job).status()).as("the machine's fault: retried").isEqualTo(JobStatus.PENDING);

        transport.pump();
        Message second = next(sub);
        second.ack();
        String again = json(second).get("lease_id").asText();
        ack(runner, again, job.uuid().toString());
        failed(runner, again, 1, "exit_code");
        assertThat(server.job(job).status())
                .as("the benchmark's own failure is signal")
                .isEqualTo(JobStatus.FAILED);
        assertThat(server.store.runs().attemptEnds(server.job(job).id()))
                .containsExactly(
                        Map.entry(1, new AttemptEnd(FailureKind.INFRASTRUCTURE, null, true, null)),
                        Map.entry(2, new AttemptEnd(FailureKind.FAILURE, 1, false, NotRetried.NOT_IN_RETRY_ON)));
    }

    @Test
    void anExpiredLeaseIsARunnerLostAndRetriedOnlyWhenRetryOnListsIt() throws Exception {
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        Job job = server.submit(
                spec, new RetryPolicy(3, 0, Set.of(FailureKind.INFRASTRUCTURE, FailureKind.FAILURE), Set.of()));
        var runner = server.runner(spec);
        Message m = next(sub);
        m.ack();
        ack(runner, json(m).get("lease_id").asText(), job.uuid().toString());
        server.clock.advance(Duration.ofSeconds(121));
        transport.pump();
        Job after = server.job(job);
        assertThat(after.status()).isEqualTo(JobStatus.FAILED);
        assertThat(after.errorCode()).isEqualTo("lease_expired");
        assertThat(server.store.runs().attemptEnds(after.id()).get(1))
                .isEqualTo(new AttemptEnd(FailureKind.RUNNER_LOST, null, false, NotRetried.NOT_IN_RETRY_ON));
    }

    @Test
    void aJobGoesFromTheOutboxThroughTheQueueToCompletion() throws Exception {
        Job job = server.submit(spec);
        transport.pump();
        assertThat(server.store.leaseOffers().unpublished(10))
                .as("the offer left the outbox")
                .isEmpty();
        JetStreamSubscription sub = pull();
        Message m = next(sub);
        JsonNode granted = json(m);
        assertThat(granted.get("type").asText()).isEqualTo("LeaseGranted");
        assertThat(granted.get("job_id").asText()).isEqualTo(job.uuid().toString());
        assertThat(granted.get("lease_ttl_seconds").asLong()).isEqualTo(120);
        assertThat(granted.get("heartbeat_interval_seconds").asLong()).isEqualTo(20);
        assertThat(granted.get("max_runtime_seconds").asLong()).isEqualTo(600);
        assertThat(granted.at("/job_spec/steps/0").asText()).isEqualTo("bench");
        assertThat(granted.at("/job_spec/baton/config/cmd/0").asText()).isEqualTo("bench");
        m.ack();
        String lease = granted.get("lease_id").asText();

        var runner = server.runner(spec);
        JsonNode accepted = ack(runner, lease, job.uuid().toString());
        assertThat(accepted.get("type").asText()).isEqualTo("LeaseAccepted");
        assertThat(accepted.get("oci_token").asText()).startsWith("pull-token-for-");
        assertThat(server.job(job).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(server.job(job).runnerId()).isEqualTo(runner.runner().id());
        // Issue 41: all transport A knows of the machine is the address its AckLease came from.
        assertThat(server.store
                        .runners()
                        .attemptMachines(server.job(job).id())
                        .get(1)
                        .host()
                        .address())
                .isEqualTo("127.0.0.1");
        assertThat(server.store
                        .runners()
                        .latestMachine(runner.runner().id())
                        .orElseThrow()
                        .host()
                        .version())
                .isNull();

        server.clock.advance(Duration.ofSeconds(20));
        JsonNode hb = heartbeat(runner, lease);
        assertThat(hb.get("type").asText()).isEqualTo("HeartbeatAck");
        assertThat(hb.get("extend_lease").asBoolean()).isTrue();
        assertThat(hb.get("cancel_requested").asBoolean()).isFalse();

        JsonNode done = complete(runner, lease, "SUCCEEDED", 0);
        assertThat(done.get("type").asText()).isEqualTo("CompleteAck");
        assertThat(done.get("accepted").asBoolean()).isTrue();
        assertThat(server.job(job).status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        assertThat(transport.pump()).as("a finished job is not offered again").isZero();
    }

    @Test
    void pendingJobsAreOfferedAndPublishedAsOneBatchAndMarkedInOneTransaction() throws Exception {
        transport.close(); // no pump hears of the jobs: they wait for the next round together
        transport = null;
        List<Job> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) jobs.add(server.submit(spec));
        LeaseOfferCalls calls = new LeaseOfferCalls(server.store);
        transport = new NatsLeaseTransport(
                server.config,
                calls.store(),
                server.clock,
                server.channel(),
                (pull, now) -> "pull-token-for-" + pull.project(),
                new BatonMetrics(),
                null);

        assertThat(transport.pump()).as("one round publishes the five").isEqualTo(5);
        assertThat(calls.of("grant"))
                .as("one transaction writes the five offers")
                .hasSize(1);
        assertThat(calls.of("markPublished"))
                .as("one transaction marks all five published")
                .singleElement()
                .satisfies(c -> assertThat(c.size()).isEqualTo(5));
        assertThat(calls.of("releaseClaims")).as("the stream stored every one").isEmpty();
        assertThat(server.store.leaseOffers().unpublished(10)).isEmpty();

        List<Message> got = pull().fetch(10, Duration.ofSeconds(5));
        assertThat(got.stream().map(m -> {
                    try {
                        return json(m).get("job_id").asText();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }))
                .as("each offer once on the queue")
                .containsExactlyInAnyOrderElementsOf(
                        jobs.stream().map(j -> j.uuid().toString()).toList());
    }

    @Test
    void aSubmittedJobIsOfferedAtOnceWithoutATimedRound() throws Exception {
        // No fallback round runs in this test and the clock stands still: only the submission's wake-up can offer the
        // job.
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        Job job = server.submit(spec);
        JsonNode granted = json(next(sub));
        assertThat(granted.get("job_id").asText()).isEqualTo(job.uuid().toString());
    }

    @Test
    void aJobThatRequiresLabelsIsNotOfferedOnTheQueueWhoseRunnersShowNone() throws Exception {
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        Job labelled = server.submit(
                spec, new dev.baton.store.JobLabels(java.util.Map.of("disk", "nvme"), java.util.Map.of()));
        Job plain = server.submit(spec);
        JsonNode granted = json(next(sub));
        assertThat(granted.get("job_id").asText())
                .as("only the job any runner of the spec may take")
                .isEqualTo(plain.uuid().toString());
        assertThat(sub.fetch(1, Duration.ofSeconds(1)))
                .as("the labelled job waits for a runner that shows its labels")
                .isEmpty();
        assertThat(server.store.runs().findJob(labelled.uuid()).orElseThrow().status())
                .isEqualTo(dev.baton.protocol.job.JobStatus.PENDING);
    }

    @Test
    void aJobBackInTheQueueAfterAnExpiredLeaseIsOfferedAgainAtOnce() throws Exception {
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        // Only a job that opted in goes back to the queue once it started (brief §1).
        Job job = server.submit(spec, new dev.baton.store.RetryPolicy(2, 0, true));
        Message m = next(sub);
        m.ack();
        var runner = server.runner(spec);
        ack(runner, json(m).get("lease_id").asText(), job.uuid().toString());
        server.clock.advance(Duration.ofSeconds(121));
        // The lease expires at its next message; no round of the pump runs after it.
        complete(runner, json(m).get("lease_id").asText(), "SUCCEEDED", 0);
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
        assertThat(json(next(sub)).get("job_id").asText()).isEqualTo(job.uuid().toString());
    }

    @Test
    void aRunnerLearnsWhereToPullAndTheServerMadeTheConsumer() throws Exception {
        var runner = server.runner(spec);
        HttpResponse<String> r = web.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/v0/runners/"
                                + runner.runner().slug().value() + "/leases/subjects"))
                        .header("Authorization", "Bearer " + runner.key())
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode subjects = Wire.mapper().readTree(r.body());
        assertThat(subjects.get("type").asText()).isEqualTo("LeaseSubjects");
        assertThat(subjects.get("stream").asText()).isEqualTo(NatsBroker.STREAM);
        assertThat(subjects.at("/specs/0/subject").asText()).isEqualTo("baton.leases.x86-small");
        assertThat(subjects.at("/specs/0/consumer").asText()).isEqualTo("baton-x86-small");
        assertThat(subjects.get("control_subject").asText())
                .isEqualTo(NatsBroker.controlSubject(runner.runner().slug().value()));
        assertThat(subjects.get("inbox_prefix").asText())
                .as("the only inbox its NATS user may read")
                .isEqualTo("_INBOX_baton." + runner.runner().slug().value());

        server.submit(spec);
        transport.pump();
        // A runner that may not create consumers (docs/operations.md) binds to the one the server made.
        JetStreamSubscription sub = client.jetStream()
                .subscribe(
                        NatsBroker.leaseSubject("x86-small"),
                        PullSubscribeOptions.bind(NatsBroker.STREAM, "baton-x86-small"));
        assertThat(json(next(sub)).get("type").asText()).isEqualTo("LeaseGranted");
    }

    @Test
    void aRedeliveredLeaseIsBoundByTheFirstAckLeaseOnly() throws Exception {
        Job job = server.submit(spec);
        transport.pump();
        JetStreamSubscription sub = pull();
        Message first = next(sub);
        first.nak(); // the broker delivers it again: at-least-once
        Message second = next(sub);
        assertThat(json(second).get("lease_id").asText())
                .isEqualTo(json(first).get("lease_id").asText());
        second.ack();
        String lease = json(first).get("lease_id").asText();

        var a = server.runner(spec);
        var b = server.runner(spec);
        assertThat(ack(a, lease, job.uuid().toString()).get("type").asText()).isEqualTo("LeaseAccepted");
        JsonNode refused = ack(b, lease, job.uuid().toString());
        assertThat(refused.get("type").asText()).isEqualTo("StaleLease");
        assertThat(refused.get("reason").asText()).isEqualTo("LEASE_TAKEN");
        assertThat(complete(b, lease, "SUCCEEDED", 0).get("reason").asText()).isEqualTo("LEASE_TAKEN");

        Job now = server.job(job);
        assertThat(now.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(now.runnerId()).isEqualTo(a.runner().id());
        assertThat(server.store.runs().attempts(now.id()))
                .singleElement()
                .satisfies(at -> assertThat(at.runnerId()).isEqualTo(a.runner().id()));
    }

    @Test
    void aLeaseNotAckedInTheWindowIsRevokedAndTheJobOfferedAgain() throws Exception {
        Job job = server.submit(spec);
        transport.pump();
        JetStreamSubscription sub = pull();
        Message pulled = next(sub);
        pulled.ack(); // the runner took it from the queue and died before AckLease
        String old = json(pulled).get("lease_id").asText();

        server.clock.advance(ChannelFixture.ACCEPTANCE_TIMEOUT.plusSeconds(1));
        assertThat(transport.pump()).as("offered again under a new lease").isEqualTo(1);
        Message again = next(sub);
        String fresh = json(again).get("lease_id").asText();
        assertThat(fresh).isNotEqualTo(old);

        var runner = server.runner(spec);
        JsonNode late = ack(runner, old, job.uuid().toString());
        assertThat(late.get("reason").asText()).isEqualTo("LEASE_REVOKED");
        assertThat(server.job(job).status())
                .as("a revoked lease changes nothing")
                .isEqualTo(JobStatus.PENDING);
        assertThat(ack(runner, fresh, job.uuid().toString()).get("type").asText())
                .isEqualTo("LeaseAccepted");
        assertThat(server.job(job).requeues())
                .as("an offer nobody took is no requeue")
                .isZero();
    }

    @Test
    void aLeaseWhoseHeartbeatsStopExpiresAndACompleteAfterwardsChangesNothing() throws Exception {
        // Only a job that opted in goes back to the queue once it started (brief §1).
        Job job = server.submit(spec, new dev.baton.store.RetryPolicy(2, 0, true));
        transport.pump();
        JetStreamSubscription sub = pull();
        Message m = next(sub);
        m.ack();
        String lease = json(m).get("lease_id").asText();
        var runner = server.runner(spec);
        ack(runner, lease, job.uuid().toString());

        server.clock.advance(Duration.ofSeconds(121));
        transport.pump();
        Job after = server.job(job);
        assertThat(after.status()).as("back in the queue as a new attempt").isEqualTo(JobStatus.PENDING);
        assertThat(server.store.runs().attempts(after.id()).getFirst().outcome())
                .isEqualTo(AttemptOutcome.LOST);
        Message reoffered = next(sub);
        assertThat(json(reoffered).get("lease_id").asText()).isNotEqualTo(lease);

        JsonNode late = complete(runner, lease, "SUCCEEDED", 0);
        assertThat(late.get("type").asText()).isEqualTo("StaleLease");
        assertThat(late.get("reason").asText()).isEqualTo("LEASE_EXPIRED");
        assertThat(heartbeat(runner, lease).get("reason").asText()).isEqualTo("LEASE_EXPIRED");
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void anExpiredLeaseIsStaleAtItsNextMessageEvenBeforeAPumpActs() throws Exception {
        Job job = server.submit(spec);
        transport.pump();
        Message m = next(pull());
        m.ack();
        String lease = json(m).get("lease_id").asText();
        var runner = server.runner(spec);
        ack(runner, lease, job.uuid().toString());

        server.clock.advance(Duration.ofSeconds(121));
        JsonNode late = complete(runner, lease, "SUCCEEDED", 0);
        assertThat(late.get("reason").asText()).isEqualTo("LEASE_EXPIRED");
        assertThat(server.job(job).status())
                .as("it had started: runner lost, not retried by default")
                .isEqualTo(JobStatus.FAILED);
    }

    @Test
    void aCancelReachesTheRunnerOnItsControlSubjectAndInTheHeartbeatAnswer() throws Exception {
        Job job = server.submit(spec);
        transport.pump();
        Message m = next(pull());
        m.ack();
        String lease = json(m).get("lease_id").asText();
        var runner = server.runner(spec);
        Subscription control = client.subscribe(
                NatsBroker.controlSubject(runner.runner().slug().value()));
        client.flush(Duration.ofSeconds(5));
        ack(runner, lease, job.uuid().toString());

        server.cancel(job);
        Message pushed = control.nextMessage(Duration.ofSeconds(10));
        assertThat(pushed).as("CancelRequested on the control subject").isNotNull();
        JsonNode cancel = json(pushed);
        assertThat(cancel.get("type").asText()).isEqualTo("CancelRequested");
        assertThat(cancel.get("lease_id").asText()).isEqualTo(lease);
        assertThat(cancel.get("deadline_seconds").asLong()).isEqualTo(30);

        JsonNode hb = heartbeat(runner, lease);
        assertThat(hb.get("cancel_requested").asBoolean()).isTrue();
        assertThat(hb.get("cancel_deadline_seconds").asLong()).isEqualTo(30);

        JsonNode acked = post(
                runner,
                "cancel-ack",
                Map.of(
                        "type",
                        "CancelAck",
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.runner().slug().value(),
                        "final_status",
                        "CANCELED",
                        "ts",
                        server.clock.instant().toString(),
                        "summary",
                        "stopped"));
        assertThat(acked.get("accepted").asBoolean()).isTrue();
        assertThat(server.job(job).status()).isEqualTo(JobStatus.CANCELED);
    }

    @Test
    void aPurgedStreamIsFilledAgainFromTheDatabase() throws Exception {
        Job job = server.submit(spec);
        transport.pump();
        client.jetStreamManagement().purgeStream(NatsBroker.STREAM);
        JetStreamSubscription sub = pull();
        assertThat(sub.fetch(1, Duration.ofMillis(500))).as("purged by hand").isEmpty();

        server.clock.advance(ChannelFixture.ACCEPTANCE_TIMEOUT.plusSeconds(1));
        assertThat(transport.pump()).isEqualTo(1);
        Message again = next(sub);
        assertThat(json(again).get("job_id").asText()).isEqualTo(job.uuid().toString());
    }

    // ---- a lease that is over (issue 40) ---------------------------------------------------------------

    /** A bound lease, acknowledged by {@code runner}: the job is running under it. */
    String running(Job job, ChannelFixture.RunnerHandle runner) throws Exception {
        transport.broker().ensureStream();
        return running(job, runner, pull());
    }

    String running(Job job, ChannelFixture.RunnerHandle runner, JetStreamSubscription sub) throws Exception {
        transport.pump();
        Message m = next(sub);
        m.ack();
        String lease = json(m).get("lease_id").asText();
        assertThat(ack(runner, lease, job.uuid().toString()).get("type").asText())
                .isEqualTo("LeaseAccepted");
        return lease;
    }

    java.util.Optional<dev.baton.protocol.model.JobOutput> output(Job job, int attempt) {
        return server.outputs.get(
                server.store.organizations().projectUuid(job.projectId()).orElseThrow(), job.uuid(), attempt);
    }

    JsonNode cancelAck(ChannelFixture.RunnerHandle runner, String lease, String stdout) throws Exception {
        return post(
                runner,
                "cancel-ack",
                Map.of(
                        "type",
                        "CancelAck",
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.runner().slug().value(),
                        "final_status",
                        "CANCELED",
                        "ts",
                        server.clock.instant().toString(),
                        "summary",
                        "stopped late",
                        "results",
                        List.of(Map.of("exit_code", 143, "stdout", stdout, "stderr", ""))));
    }

    @Test
    void aLeaseRevokedAtTheCancelDeadlineWritesNothingOnAnyRoute() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        String lease = running(job, runner);
        server.cancel(job);
        server.advance(ChannelFixture.CANCEL_DEADLINE.plusSeconds(1)); // the runner ignored the cancel
        Job finalized = server.job(job);
        assertThat(finalized.status()).isEqualTo(JobStatus.CANCELED);

        JsonNode late = cancelAck(runner, lease, "LATE-CANCEL");
        assertThat(late.get("type").asText()).as(late.toString()).isEqualTo("StaleLease");
        assertThat(late.get("reason").asText()).isEqualTo("JOB_FINISHED");
        assertThat(output(job, 1))
                .as("a CancelAck after the deadline stores no output")
                .isEmpty();

        JsonNode completed = complete(runner, lease, "SUCCEEDED", 0);
        assertThat(completed.get("type").asText()).as(completed.toString()).isEqualTo("StaleLease");
        assertThat(completed.get("reason").asText()).isEqualTo("JOB_FINISHED");

        JsonNode hb = heartbeat(runner, lease);
        assertThat(hb.get("type").asText()).isEqualTo("StaleLease");
        assertThat(hb.get("reason").asText()).isEqualTo("JOB_FINISHED");
        assertThat(hb.get("lease_id").asText()).isEqualTo(lease);
        assertThat(hb.get("extend_lease").asBoolean(true))
                .as("seed 003: extend_lease=false on a stale heartbeat")
                .isFalse();
        assertThat(hb.get("stale").asBoolean(false)).as("seed 003: stale=true").isTrue();

        JsonNode acked = ack(runner, lease, job.uuid().toString());
        assertThat(acked.get("type").asText()).isEqualTo("StaleLease");
        assertThat(acked.get("reason").asText()).isEqualTo("JOB_FINISHED");

        Job after = server.job(job);
        assertThat(after.status()).isEqualTo(JobStatus.CANCELED);
        assertThat(after.modified()).as("nothing changed the job").isEqualTo(finalized.modified());
        assertThat(output(job, 1)).isEmpty();
    }

    @Test
    void aLateCancelAckAfterTheDeadlineIsStaleEvenBeforeAHeartbeatSaysSo() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        String lease = running(job, runner);
        server.cancel(job);
        server.clock.advance(ChannelFixture.CANCEL_DEADLINE.plusSeconds(1)); // no sweep has run yet
        JsonNode late = cancelAck(runner, lease, "LATE-CANCEL");
        assertThat(late.get("type").asText()).as(late.toString()).isEqualTo("StaleLease");
        assertThat(output(job, 1)).isEmpty();
    }

    @Test
    void aCancelAckInTimeKeepsItsResultsAndItsResendIsAnsweredAsBefore() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        String lease = running(job, runner);
        server.cancel(job);
        server.clock.advance(Duration.ofSeconds(5));
        assertThat(cancelAck(runner, lease, "IN-TIME").get("accepted").asBoolean())
                .isTrue();
        assertThat(output(job, 1))
                .hasValueSatisfying(
                        o -> assertThat(o.results().getFirst().stdout()).isEqualTo("IN-TIME"));
        server.advance(ChannelFixture.CANCEL_DEADLINE.plusSeconds(1));
        JsonNode again = cancelAck(runner, lease, "IN-TIME");
        assertThat(again.get("type").asText())
                .as("the runner's own final word, resent")
                .isEqualTo("CompleteAck");
        assertThat(again.get("accepted").asBoolean()).isTrue();
        assertThat(heartbeat(runner, lease).get("reason").asText()).isEqualTo("JOB_FINISHED");
    }

    @Test
    void aResentCompleteIsAnsweredAsTheFirstAndAnotherWordAfterItIsStale() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        String lease = running(job, runner);
        assertThat(complete(runner, lease, "SUCCEEDED", 0).get("accepted").asBoolean())
                .isTrue();
        JsonNode again = complete(runner, lease, "SUCCEEDED", 0);
        assertThat(again.get("type").asText()).isEqualTo("CompleteAck");
        assertThat(again.get("accepted").asBoolean()).isTrue();
        JsonNode cancel = cancelAck(runner, lease, "AFTER");
        assertThat(cancel.get("type").asText()).isEqualTo("StaleLease");
        assertThat(cancel.get("reason").asText()).isEqualTo("JOB_FINISHED");
        assertThat(heartbeat(runner, lease).get("reason").asText()).isEqualTo("JOB_FINISHED");
    }

    // ---- input the rest of the API refuses (issue 40) ---------------------------------------------------

    HttpResponse<String> postRaw(ChannelFixture.RunnerHandle runner, String what, String body) throws Exception {
        return web.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/v0/runners/"
                                + runner.runner().slug().value() + "/leases/" + what))
                        .header("Authorization", "Bearer " + runner.key())
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    void refused(HttpResponse<String> r, int status, String code, String... named) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        JsonNode error = Wire.mapper().readTree(r.body());
        assertThat(error.get("code").asText()).as(r.body()).isEqualTo(code);
        String message = error.get("message").asText();
        assertThat(message)
                .as("no Java internals")
                .doesNotContain("dev.baton", "$", "Cannot deserialize", "java.", "through reference chain");
        for (String n : named) assertThat(message).contains(n);
    }

    @Test
    void aMessageWithoutItsLeaseIsRefusedAsNotTheSeedsShape() throws Exception {
        var runner = server.runner(spec);
        String me = runner.runner().slug().value();
        refused(
                postRaw(runner, "heartbeat", "{\"type\":\"Heartbeat\",\"runner_id\":\"" + me + "\"}"),
                400,
                "invalid_message",
                "Heartbeat",
                "lease_id");
        refused(
                postRaw(runner, "complete", "{\"type\":\"Complete\",\"status\":\"SUCCEEDED\",\"exit_code\":0}"),
                400,
                "invalid_message",
                "Complete",
                "lease_id");
        refused(
                postRaw(runner, "cancel-ack", "{\"type\":\"CancelAck\",\"final_status\":\"CANCELED\"}"),
                400,
                "invalid_message",
                "CancelAck",
                "lease_id");
        refused(
                postRaw(runner, "ack", "{\"type\":\"AckLease\",\"job_id\":\"x\"}"),
                400,
                "invalid_message",
                "AckLease",
                "lease_id");
    }

    @Test
    void aFieldOfTheWrongTypeIsNamedWithoutJavaInternals() throws Exception {
        var runner = server.runner(spec);
        refused(
                postRaw(runner, "heartbeat", "{\"type\":\"Heartbeat\",\"lease_id\":[1]}"),
                400,
                "invalid_message",
                "Heartbeat",
                "lease_id");
        refused(
                postRaw(
                        runner,
                        "complete",
                        "{\"type\":\"Complete\",\"lease_id\":\"l\",\"status\":\"SUCCEEDED\",\"exit_code\":\"zero\"}"),
                400,
                "invalid_message",
                "Complete",
                "exit_code");
        refused(
                postRaw(runner, "heartbeat", "{\"type\":\"Complete\",\"lease_id\":\"l\"}"),
                400,
                "invalid_message",
                "Heartbeat",
                "type");
        refused(postRaw(runner, "heartbeat", "[1]"), 400, "invalid_json");
        refused(postRaw(runner, "heartbeat", "{\"type\":"), 400, "invalid_json");
    }

    @Test
    void aLoneSurrogateIsRefusedAsTheRestOfTheApiDoes() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        String lease = running(job, runner);
        String body = "{\"type\":\"Complete\",\"lease_id\":\"" + lease + "\",\"status\":\"FAILED\",\"exit_code\":1,"
                + "\"summary\":\"bad \\ud800 text\"}";
        refused(postRaw(runner, "complete", body), 400, "invalid_json", "surrogate");
        assertThat(server.job(job).status()).as("nothing stored").isEqualTo(JobStatus.RUNNING);
    }

    // ---- the seed's shapes (issue 40) -----------------------------------------------------------------

    @Test
    void aLeaseGrantedAlwaysCarriesTheSeedsEnv() throws Exception {
        // A run submitted without env (the API keeps it absent): seed 003's job_spec still has "env":{}.
        java.time.Instant now = server.clock.instant();
        var config = new dev.baton.protocol.model.JobConfig(
                "http://127.0.0.1",
                server.project.uuid(),
                dev.baton.protocol.value.ImageDigest.of("sha256:" + "a".repeat(64)),
                null,
                List.of("bench"),
                null,
                dev.baton.protocol.value.JobTimeout.of(600),
                null,
                1);
        Job job = server.store
                .runs()
                .createRun(
                        new dev.baton.store.NewReport(server.project.id(), "main", "localhost", "json", now, now, null),
                        new dev.baton.store.NewJob(
                                spec.id(),
                                "192.0.2.1",
                                config,
                                600,
                                server.organization.plan().priority(),
                                dev.baton.store.RetryPolicy.NONE),
                        server.organization.id(),
                        now)
                .job();
        assertThat(job.config().env()).isNull();
        transport.pump();
        JsonNode granted = json(next(pull()));
        assertThat(granted.at("/job_spec/env").isObject())
                .as(granted.toString())
                .isTrue();
        assertThat(granted.at("/job_spec/env").size()).isZero();
    }

    // ---- what a seed runner sends is kept (issue 40) ---------------------------------------------------

    @Test
    void progressIsKeptOnTheLeaseAndArtifactsAndTimingsOnTheAttempt() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        String lease = running(job, runner);
        dev.baton.protocol.id.LeaseId id = dev.baton.protocol.id.LeaseId.parse(lease);
        heartbeat(runner, lease);
        assertThat(server.store.leaseOffers().progress(id))
                .hasValueSatisfying(p -> assertThat(p).contains("\"percent\":50", "halfway"));
        // A heartbeat without progress keeps what the last one said.
        post(runner, "heartbeat", Map.of("type", "Heartbeat", "lease_id", lease));
        assertThat(server.store.leaseOffers().progress(id))
                .hasValueSatisfying(p -> assertThat(p).contains("halfway"));

        JsonNode done = post(
                runner,
                "complete",
                Map.of(
                        "type",
                        "Complete",
                        "lease_id",
                        lease,
                        "status",
                        "SUCCEEDED",
                        "exit_code",
                        0,
                        "timings",
                        Map.of("started_at", "2026-01-04T08:00:05Z", "finished_at", "2026-01-04T08:03:12Z"),
                        "artifacts",
                        List.of(Map.of("type", "log", "uri", "s3://a/log.txt")),
                        "results",
                        List.of(Map.of("exit_code", 0, "stdout", "{}", "stderr", ""))));
        assertThat(done.get("accepted").asBoolean()).isTrue();
        Job after = server.job(job);
        assertThat(server.store.leaseOffers().reports(after.id()))
                .containsOnlyKeys(1)
                .hasEntrySatisfying(
                        1,
                        r -> assertThat(r).contains("s3://a/log.txt", "2026-01-04T08:00:05Z", "2026-01-04T08:03:12Z"));
        assertThat(server.store.leaseOffers().progress(id))
                .as("only while the lease is bound")
                .isEmpty();

        // A resend keeps nothing new.
        post(
                runner,
                "complete",
                Map.of(
                        "type",
                        "Complete",
                        "lease_id",
                        lease,
                        "status",
                        "SUCCEEDED",
                        "exit_code",
                        0,
                        "artifacts",
                        List.of(Map.of("type", "log", "uri", "s3://other"))));
        assertThat(server.store.leaseOffers().reports(after.id()).get(1)).doesNotContain("s3://other");
    }

    @Test
    void progressAndTimingsOfTheWrongShapeAreRefused() throws Exception {
        var runner = server.runner(spec);
        refused(
                postRaw(
                        runner,
                        "heartbeat",
                        "{\"type\":\"Heartbeat\",\"lease_id\":\"l\",\"progress\":{\"percent\":\"half\"}}"),
                400,
                "invalid_message",
                "Heartbeat",
                "progress.percent");
        refused(
                postRaw(
                        runner,
                        "heartbeat",
                        "{\"type\":\"Heartbeat\",\"lease_id\":\"l\",\"progress\":{\"percent\":250}}"),
                400,
                "invalid_message",
                "Heartbeat",
                "percent");
        refused(
                postRaw(
                        runner,
                        "complete",
                        "{\"type\":\"Complete\",\"lease_id\":\"l\",\"status\":\"SUCCEEDED\",\"timings\":{\"started_at\":\"yesterday\"}}"),
                400,
                "invalid_message",
                "Complete",
                "timings.started_at");
    }

    // ---- one rule for both transports: a started job is not retried by default (issue 40) --------------

    @Test
    void aRunningJobWhoseLeaseExpiresFailsAsRunnerLostAndIsNotOfferedAgain() throws Exception {
        Job job = server.submit(spec);
        var runner = server.runner(spec);
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        String lease = running(job, runner, sub);
        server.clock.advance(Duration.ofSeconds(121));
        transport.pump();
        Job after = server.job(job);
        assertThat(after.status())
                .as("a failed benchmark is signal: no retry by default")
                .isEqualTo(JobStatus.FAILED);
        assertThat(after.errorCode()).isEqualTo("lease_expired");
        assertThat(server.store.runs().attempts(after.id()))
                .singleElement()
                .satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.LOST));
        assertThat(sub.fetch(1, Duration.ofMillis(500))).as("not offered again").isEmpty();
        JsonNode late = complete(runner, lease, "SUCCEEDED", 0);
        assertThat(late.get("reason").asText()).isEqualTo("LEASE_EXPIRED");
        assertThat(server.job(job).status()).isEqualTo(JobStatus.FAILED);
    }

    @Test
    void aRunningJobThatOptedInIsRunAgainWhenItsLeaseExpires() throws Exception {
        Job job = server.submit(spec, new dev.baton.store.RetryPolicy(2, 0, true));
        var runner = server.runner(spec);
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        String lease = running(job, runner, sub);
        server.clock.advance(Duration.ofSeconds(121));
        transport.pump();
        Job after = server.job(job);
        assertThat(after.status()).isEqualTo(JobStatus.PENDING);
        assertThat(server.store.runs().attempts(after.id()))
                .singleElement()
                .satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.LOST));
        transport.pump();
        JsonNode again = json(next(sub));
        assertThat(again.get("job_id").asText()).isEqualTo(job.uuid().toString());
        assertThat(again.get("lease_id").asText()).isNotEqualTo(lease);
    }

    // ---- the broker restarted with jobs in flight -------------------------------------------------

    @Test
    void aBrokerRestartedWithJobsInFlightLosesNoneAndRunsNoneTwice() throws Exception {
        brokerRestartedWithJobsInFlight(false);
    }

    @Test
    void aBrokerRestartedWithoutItsStoreLosesNoneAndRunsNoneTwice() throws Exception {
        brokerRestartedWithJobsInFlight(true);
    }

    /**
     * Seven jobs: two bound and running, two pulled by a runner that died before AckLease, two still
     * on the queue, and one submitted while the broker is down. The broker restarts (with its store,
     * or {@code wiped} of it). Heartbeats and Completes go to the server and never noticed; the
     * rest comes back from the queue or, once the acceptance window passed, from the database
     * under new leases. Each job runs exactly once: counted by the test's runner when the server
     * accepts its AckLease, and in the server's attempts.
     */
    private void brokerRestartedWithJobsInFlight(boolean wiped) throws Exception {
        transport.broker().ensureStream();
        JetStreamSubscription sub = pull();
        var runner = server.runner(spec);
        Map<String, Integer> executions = new java.util.concurrent.ConcurrentHashMap<>();
        List<Job> jobs = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) jobs.add(server.submit(spec));
        transport.pump();
        List<String> running = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Message m = next(sub);
            JsonNode granted = json(m);
            assertThat(ack(
                                    runner,
                                    granted.get("lease_id").asText(),
                                    granted.get("job_id").asText())
                            .get("type")
                            .asText())
                    .isEqualTo("LeaseAccepted");
            executions.merge(granted.get("job_id").asText(), 1, Integer::sum);
            m.ack();
            running.add(granted.get("lease_id").asText());
        }
        for (int i = 0; i < 2; i++) next(sub); // pulled by a runner that died: never answered, never acked

        nats.stop();
        if (wiped) deleteTree(dataDir.resolve("nats"));
        jobs.add(server.submit(spec)); // its offer waits in the outbox
        for (String lease : running) {
            assertThat(heartbeat(runner, lease).get("extend_lease").asBoolean())
                    .as("heartbeats do not go through the broker")
                    .isTrue();
        }
        nats.start();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> transport.broker().connected());
        client.close();
        client = Nats.connect(nats.url());
        // The server makes the stream again when the broker lost it (at the first publish that fails).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            transport.pump();
            return client.jetStreamManagement().getStreamNames().contains(NatsBroker.STREAM);
        });
        sub = pull();
        for (String lease : running) {
            assertThat(complete(runner, lease, "SUCCEEDED", 0).get("accepted").asBoolean())
                    .isTrue();
        }

        for (int round = 0;
                round < 20
                        && !jobs.stream().allMatch(j -> server.job(j).status().terminal());
                round++) {
            transport.pump();
            List<Message> got = sub.fetch(10, Duration.ofSeconds(1));
            if (got.isEmpty()) {
                // What the dead runner held, or what the broker lost, is offered again once its acceptance window ends.
                server.clock.advance(ChannelFixture.ACCEPTANCE_TIMEOUT.plusSeconds(1));
                continue;
            }
            for (Message m : got) {
                JsonNode granted = json(m);
                String lease = granted.get("lease_id").asText();
                JsonNode answer = ack(runner, lease, granted.get("job_id").asText());
                if (answer.get("type").asText().equals("LeaseAccepted")) {
                    executions.merge(granted.get("job_id").asText(), 1, Integer::sum);
                    assertThat(complete(runner, lease, "SUCCEEDED", 0)
                                    .get("accepted")
                                    .asBoolean())
                            .isTrue();
                }
                m.ack();
            }
        }

        assertThat(executions.keySet())
                .as("none lost")
                .containsExactlyInAnyOrderElementsOf(
                        jobs.stream().map(j -> j.uuid().toString()).toList());
        assertThat(executions.values())
                .as("none run twice")
                .allSatisfy(n -> assertThat(n).isEqualTo(1));
        for (Job j : jobs) {
            Job after = server.job(j);
            assertThat(after.status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
            assertThat(server.store.runs().attempts(after.id()))
                    .as("one attempt of " + j.uuid())
                    .hasSize(1);
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        if (!java.nio.file.Files.exists(root)) return;
        try (var paths = java.nio.file.Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.delete(p);
        }
    }

    JsonNode ready() throws Exception {
        HttpResponse<String> r = web.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.port() + "/ready"))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode())
                .as("a broker down does not make the node unready (every node shares it): " + r.body())
                .isEqualTo(200);
        return Wire.mapper().readTree(r.body());
    }

    @Test
    void readySaysWhetherTheBrokerIsConnected() throws Exception {
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> transport.broker().connected());
        assertThat(ready().at("/broker/state").asText()).isEqualTo("connected");
        assertThat(ready().at("/broker/connected").asBoolean()).isTrue();
        nats.stop();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> !ready().at("/broker/connected").asBoolean());
        assertThat(ready().at("/broker/state").asText()).isNotEqualTo("connected");
        assertThat(ready().get("status").asText()).isEqualTo("ready");
    }

    @Test
    void offersWaitInTheOutboxWhileTheBrokerIsDownAndArePublishedWhenItIsBack() throws Exception {
        transport.pump(); // the stream exists
        nats.stop();
        Job job = server.submit(spec);
        assertThat(transport.pump()).as("nothing reaches a stopped broker").isZero();
        assertThat(server.store.leaseOffers().unpublished(10))
                .singleElement()
                .satisfies(o -> assertThat(o.job()).isEqualTo(job.uuid()));
        nats.start();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> transport.broker().connected());
        client.close();
        client = Nats.connect(nats.url());
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> transport.pump() == 1
                        || server.store.leaseOffers().unpublished(10).isEmpty());
        Message m = next(pull());
        assertThat(json(m).get("job_id").asText()).isEqualTo(job.uuid().toString());
    }
}
