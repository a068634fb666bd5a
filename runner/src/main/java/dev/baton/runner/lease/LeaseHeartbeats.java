package dev.baton.runner.lease;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the server says to the leases this runner holds while they run: the answer to each
 * heartbeat (the lease renewed, stale, or to be canceled) and a CancelRequested on the runner's
 * control subject. Both cancel paths meet in {@link #cancel}: the control subject is core NATS, at
 * most once, so the HeartbeatAck repeats the request and a lost message only delays the stop.
 */
final class LeaseHeartbeats {
    private static final Logger log = LoggerFactory.getLogger(LeaseHeartbeats.class);

    private final LeaseServer server;
    private final String runner;
    private final Clock clock;
    /** The longest stop a cancel may grant: the runner's grace period, whatever deadline the server asks. */
    private final Duration grace;
    /** The jobs held, by lease id: the {@link LeaseRunner}'s own map, read here to find a canceled lease. */
    private final Map<String, LeasedJob> jobs;

    LeaseHeartbeats(LeaseServer server, String runner, Clock clock, Duration grace, Map<String, LeasedJob> jobs) {
        this.server = server;
        this.runner = runner;
        this.clock = clock;
        this.grace = grace;
        this.jobs = jobs;
    }

    /** One heartbeat for {@code job}, and what its answer asks: renew, stop on a stale lease, or cancel. */
    void send(LeasedJob job) {
        Instant sent = clock.instant();
        try {
            var progress = new SeedMessages.Progress(
                    String.join(
                            " ",
                            job.job.config().cmd() == null
                                    ? List.of()
                                    : job.job.config().cmd()),
                    job.phase());
            LeaseServer.Answer a = server.post(
                    "heartbeat", new SeedMessages.Heartbeat(job.lease(), runner, progress, sent.toString()));
            if (a.is("HeartbeatAck")) {
                JsonNode ack = a.body();
                if (ack.path("extend_lease").asBoolean()) job.renewed(sent);
                else job.heartbeatDone(clock.instant());
                if (ack.path("cancel_requested").asBoolean())
                    cancel(job, ack.path("cancel_deadline_seconds").asLong());
            } else if (a.stale()) {
                job.heartbeatDone(clock.instant());
                if (job.stale())
                    log.info(
                            "job {}: lease stale ({}); stopping it",
                            job.grant.jobId(),
                            a.body().path("reason").asText());
            } else {
                job.heartbeatDone(clock.instant());
                log.warn("job {}: heartbeat refused: {} {}", job.grant.jobId(), a.status(), a.error());
            }
        } catch (IOException e) {
            job.heartbeatDone(clock.instant());
            log.warn("job {}: heartbeat not delivered: {}", job.grant.jobId(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A message on the runner's control subject; only CancelRequested means anything here. */
    void control(String text) {
        try {
            JsonNode m = Wire.mapper().readTree(text);
            if (!"CancelRequested".equals(m.path("type").asText())) return;
            LeasedJob job = jobs.get(m.path("lease_id").asText());
            if (job != null) cancel(job, m.path("deadline_seconds").asLong());
        } catch (IOException e) {
            log.debug("unreadable control message: {}", e.toString());
        }
    }

    private void cancel(LeasedJob job, long deadlineSeconds) {
        Duration within = Duration.ofSeconds(Math.max(0, Math.min(deadlineSeconds, grace.toSeconds())));
        if (job.cancel(within))
            log.info("job {}: cancel requested; stopping it within {} s", job.grant.jobId(), within.toSeconds());
    }
}
