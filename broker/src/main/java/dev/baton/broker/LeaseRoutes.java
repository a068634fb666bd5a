package dev.baton.broker;

import dev.baton.core.config.BrokerSettings;
import dev.baton.dispatch.JobLifecycle;
import dev.baton.dispatch.JobPullTokens;
import dev.baton.dispatch.RunnerSession;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.store.Job;
import dev.baton.store.LeaseOffer;
import dev.baton.store.LeaseOffers;
import dev.baton.store.Runner;
import dev.baton.store.Store;
import dev.baton.web.auth.RunnerAuthenticator;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Transport A's runner endpoints (docs/protocol.md, "Transport A"), authenticated with the
 * runner key as the runner channel is: {@code POST /v0/runners/{runner}/leases/ack},
 * {@code …/heartbeat}, {@code …/complete}, {@code …/cancel-ack}. The body and the answer are seed
 * 003's messages. The first AckLease of a lease binds it; every message under a lease that is not
 * the runner's current one is answered StaleLease and changes nothing. After the binding, the job
 * goes through the same {@link JobLifecycle} as a channel runner's, so every rule of the lifecycle
 * (fencing, hard timeout, cancel deadline, results applied once) holds for both transports.
 */
final class LeaseRoutes implements RouteModule {
    private final Store store;
    private final LeaseOffers offers;
    private final JobLifecycle lifecycle;
    private final RunnerAuthenticator runners;
    private final JobPullTokens pullTokens;
    private final BrokerSettings settings;
    private final Clock clock;
    private final Duration acceptance;
    private final int maxRequeues;
    private final long maxBody;
    private final BrokerMetrics metrics;
    private final Consumer<LeaseOffers.Expired> expired;

    LeaseRoutes(
            Store store,
            JobLifecycle lifecycle,
            JobPullTokens pullTokens,
            BrokerSettings settings,
            Clock clock,
            Duration acceptance,
            int maxRequeues,
            long maxBody,
            BrokerMetrics metrics,
            Consumer<LeaseOffers.Expired> expired) {
        this.store = store;
        this.offers = store.leaseOffers();
        this.lifecycle = lifecycle;
        this.runners = new RunnerAuthenticator(store);
        this.pullTokens = pullTokens;
        this.settings = settings;
        this.clock = clock;
        this.acceptance = acceptance;
        this.maxRequeues = maxRequeues;
        this.maxBody = maxBody;
        this.metrics = metrics;
        this.expired = expired;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.get("/v0/runners/{runner}/leases/subjects", ctx -> answer(ctx, subjects(runner(ctx))));
        // The runner is authenticated before its body is read: a stranger learns nothing from the body's refusal.
        config.routes.post("/v0/runners/{runner}/leases/ack", ctx -> {
            Runner runner = runner(ctx);
            answer(ctx, ack(runner, read(ctx, LeaseMessages.AckLease.class), ctx.ip()));
        });
        config.routes.post("/v0/runners/{runner}/leases/heartbeat", ctx -> {
            Runner runner = runner(ctx);
            answer(ctx, heartbeat(runner, read(ctx, LeaseMessages.Heartbeat.class)));
        });
        config.routes.post("/v0/runners/{runner}/leases/complete", ctx -> {
            Runner runner = runner(ctx);
            answer(ctx, complete(runner, read(ctx, LeaseMessages.Complete.class)));
        });
        config.routes.post("/v0/runners/{runner}/leases/log", ctx -> {
            Runner runner = runner(ctx);
            answer(
                    ctx,
                    log(
                            runner,
                            LeaseBodies.read(
                                    Json.readBody(ctx, maxBody),
                                    LeaseMessages.LogChunk.class,
                                    "lease_id",
                                    "seq",
                                    "stream")));
        });
        config.routes.post("/v0/runners/{runner}/leases/cancel-ack", ctx -> {
            Runner runner = runner(ctx);
            answer(ctx, cancelAck(runner, read(ctx, LeaseMessages.CancelAck.class)));
        });
    }

    // ---- the messages ------------------------------------------------------------------------------

    /** Where the runner pulls: the specs it serves whose jobs are offered on the broker (none archived). */
    LeaseMessages.LeaseSubjects subjects(Runner runner) {
        List<LeaseMessages.SpecQueue> queues = store.specs().runnerSpecs(runner.id()).stream()
                .filter(s -> s.archived() == null && settings.offers(s.slug().value()))
                .map(s -> new LeaseMessages.SpecQueue(
                        s.slug().value(),
                        NatsBroker.leaseSubject(s.slug().value()),
                        NatsBroker.consumer(s.slug().value())))
                .toList();
        return new LeaseMessages.LeaseSubjects(
                "LeaseSubjects",
                runner.slug().value(),
                NatsBroker.STREAM,
                queues,
                NatsBroker.controlSubject(runner.slug().value()),
                NatsBroker.inboxPrefix(runner.slug().value()));
    }

    /**
     * {@code address}: where the AckLease came from, as this server sees it; all that transport A
     * knows of the runner's machine (seed 003's messages carry no os, version or host), recorded as
     * the runner's machine and the attempt's (issue 41).
     */
    Object ack(Runner runner, LeaseMessages.AckLease m, String address) {
        sameRunner(runner, m.runnerId());
        Optional<LeaseId> lease = lease(m.leaseId());
        if (lease.isEmpty()) return stale(m.leaseId(), LeaseMessages.Reasons.UNKNOWN);
        Instant now = clock.instant();
        LeaseOffers.Ack ack =
                offers.ack(lease.get(), runner.id(), now, now.plus(settings.leaseTtl()), now.plus(acceptance));
        return switch (ack.result()) {
            case BOUND -> {
                metrics.acked();
                // AckLease is "accepted and starting work" (seed 003): the attempt is running from here.
                RunnerHost machine = new RunnerHost(null, null, null, null, null, null, address).bounded();
                store.runners().recordMachine(runner.id(), machine, now);
                ServerMessage started = lifecycle
                        .runningMessages()
                        .running(
                                session(runner),
                                new RunnerMessage.Running(ack.job().uuid(), lease.get(), null, machine));
                if (!(started instanceof ServerMessage.Ack)) yield staleFromLifecycle(m.leaseId(), started);
                yield accepted(runner, ack.job(), lease.get());
            }
            case ALREADY_BOUND -> {
                metrics.redelivered();
                // A resent AckLease is answered as the first only while the lease lives (not expired, its job not
                // over).
                Held held = held(runner, m.leaseId(), null);
                if (held.stale() != null) yield held.stale();
                yield ack.job().holds(lease.get()) && ack.job().status().inFlight()
                        ? accepted(runner, ack.job(), lease.get())
                        : stale(m.leaseId(), LeaseMessages.Reasons.FINISHED);
            }
            case TAKEN -> {
                metrics.redelivered();
                yield stale(m.leaseId(), LeaseMessages.Reasons.TAKEN);
            }
            case REVOKED -> stale(m.leaseId(), LeaseMessages.Reasons.REVOKED);
            case ENDED -> stale(m.leaseId(), LeaseMessages.Reasons.FINISHED);
            case UNKNOWN -> stale(m.leaseId(), LeaseMessages.Reasons.UNKNOWN);
            case NOT_SERVED ->
                throw new ApiException(
                        403,
                        "not_your_spec",
                        "runner " + runner.slug().value()
                                + " does not serve the spec of this lease's job (or is archived or quarantined)");
        };
    }

    /** A HeartbeatAck, or a StaleLease with the seed's {@code extend_lease=false} and {@code stale=true}. */
    Object heartbeat(Runner runner, LeaseMessages.Heartbeat m) {
        Object answer = heartbeatAnswer(runner, m);
        return answer instanceof LeaseMessages.StaleLease s ? s.toHeartbeat() : answer;
    }

    private Object heartbeatAnswer(Runner runner, LeaseMessages.Heartbeat m) {
        sameRunner(runner, m.runnerId());
        Held held = held(runner, m.leaseId(), null);
        if (held.stale() != null) return held.stale();
        LeaseId lease = held.offer().lease();
        Instant now = clock.instant();
        long ttl = settings.leaseTtl().toSeconds();
        String progress = m.progress() == null ? null : Wire.encode(m.progress());
        Optional<Instant> cancelBy = offers.cancelDeadline(lease);
        if (cancelBy.isPresent() && cancelBy.get().isAfter(now)) {
            offers.renew(lease, runner.id(), now, now.plus(settings.leaseTtl()), progress);
            return new LeaseMessages.HeartbeatAck(
                    "HeartbeatAck", m.leaseId(), true, ttl, true, secondsUntil(now, cancelBy.get()));
        }
        ServerMessage reply = lifecycle
                .runningMessages()
                .heartbeat(
                        session(runner),
                        new RunnerMessage.Heartbeat(held.offer().job(), lease, null));
        return switch (reply) {
            case ServerMessage.Ack a ->
                offers.renew(lease, runner.id(), now, now.plus(settings.leaseTtl()), progress)
                        ? new LeaseMessages.HeartbeatAck("HeartbeatAck", m.leaseId(), true, ttl, false, 0)
                        : stale(m.leaseId(), LeaseMessages.Reasons.EXPIRED);
            case ServerMessage.Cancel c -> {
                offers.renew(lease, runner.id(), now, now.plus(settings.leaseTtl()), progress);
                yield new LeaseMessages.HeartbeatAck("HeartbeatAck", m.leaseId(), true, ttl, true, c.deadlineSeconds());
            }
            default -> staleFromLifecycle(m.leaseId(), reply);
        };
    }

    /** A chunk of live output under the runner's lease goes where a channel runner's {@code log} goes. */
    Object log(Runner runner, LeaseMessages.LogChunk m) {
        sameRunner(runner, m.runnerId());
        Held held = held(runner, m.leaseId(), null);
        if (held.stale() != null) return held.stale();
        LeaseOffer o = held.offer();
        RunnerMessage.Log chunk;
        try {
            chunk = m.toLog(o.job(), o.lease());
        } catch (IllegalArgumentException e) {
            throw new ApiException(
                    400, "invalid_message", "LogChunk: " + e.getMessage().replaceFirst("^log: ", ""));
        }
        ServerMessage reply = lifecycle.runningMessages().log(session(runner), chunk);
        if (!(reply instanceof ServerMessage.Ack)) return staleFromLifecycle(m.leaseId(), reply);
        return new LeaseMessages.LogAck("LogAck", m.leaseId(), m.seq());
    }

    Object complete(Runner runner, LeaseMessages.Complete m) {
        sameRunner(runner, m.runnerId());
        if (m.status() == null)
            throw new ApiException(400, "invalid_message", "Complete needs status: SUCCEEDED, FAILED or CANCELED");
        if (!List.of("SUCCEEDED", "FAILED", "CANCELED").contains(m.status())) {
            throw new ApiException(
                    400,
                    "invalid_message",
                    "Complete: status must be SUCCEEDED, FAILED or CANCELED, not " + m.status());
        }
        Held held = held(runner, m.leaseId(), m.status());
        if (held.stale() != null) return held.stale();
        LeaseOffer o = held.offer();
        List<IterationResult> results = m.results() != null
                ? m.results()
                : List.of(new IterationResult(m.exitCode(), "", m.summary() == null ? "" : m.summary(), null));
        RunnerMessage.Terminal word = switch (m.status()) {
            case "SUCCEEDED" -> new RunnerMessage.Completed(o.job(), o.lease(), results);
            case "FAILED" ->
                new RunnerMessage.Failed(
                        o.job(),
                        o.lease(),
                        results,
                        m.summary() != null && !m.summary().isBlank() ? m.summary() : "exit code " + m.exitCode(),
                        null,
                        m.failure());
            case "CANCELED" -> new RunnerMessage.Canceled(o.job(), o.lease(), results);
            default ->
                throw new ApiException(
                        400, "invalid_message", "status must be SUCCEEDED, FAILED or CANCELED, not " + m.status());
        };
        return finalWord(
                runner, o, word, m.leaseId(), m.status(), LeaseMessages.AttemptReport.of(m.artifacts(), m.timings()));
    }

    Object cancelAck(Runner runner, LeaseMessages.CancelAck m) {
        sameRunner(runner, m.runnerId());
        Held held = held(runner, m.leaseId(), "CANCELED");
        if (held.stale() != null) return held.stale();
        LeaseOffer o = held.offer();
        List<IterationResult> results = m.results() != null ? m.results() : List.of();
        return finalWord(
                runner,
                o,
                new RunnerMessage.Canceled(o.job(), o.lease(), results),
                m.leaseId(),
                "CANCELED",
                LeaseMessages.AttemptReport.of(m.artifacts(), null));
    }

    private Object finalWord(
            Runner runner,
            LeaseOffer o,
            RunnerMessage.Terminal word,
            String leaseText,
            String said,
            LeaseMessages.AttemptReport report) {
        ServerMessage reply = lifecycle.finalMessages().terminal(session(runner), word);
        if (!(reply instanceof ServerMessage.Ack)) return staleFromLifecycle(leaseText, reply);
        // The runner's account is kept by its first final word on the lease (a resend keeps nothing new).
        if (report != null && o.state() == LeaseOffer.State.BOUND) offers.keepReport(o.lease(), Wire.encode(report));
        // A resend racing this very request (between the lifecycle's commit and this line) finds
        // the job finished under a bound offer and is answered StaleLease JOB_FINISHED instead of
        // CompleteAck: only that answer differs, nothing is stored twice, and the runner stops
        // either way. This end replaces the job_finished it wrote, so later resends get CompleteAck.
        offers.end(o.lease(), RUNNER_ENDED + said);
        Job now = store.runs().findJob(o.job()).orElseThrow();
        boolean accepted = now.holds(o.lease())
                && switch (said) {
                    case "SUCCEEDED" -> now.status() == JobStatus.COMPLETED || now.status() == JobStatus.PROCESSED;
                    case "FAILED" -> now.status() == JobStatus.FAILED;
                    default -> now.status() == JobStatus.CANCELED;
                };
        return new LeaseMessages.CompleteAck("CompleteAck", leaseText, accepted);
    }

    // ---- leases --------------------------------------------------------------------------------------

    /**
     * The end reason of an offer whose attempt the runner's own final word ended, followed by the
     * outcome it reported (SUCCEEDED, FAILED or CANCELED): only a resend of that word is still
     * answered on the lease (as before, idempotently); every other message is stale.
     */
    static final String RUNNER_ENDED = "runner:";
    /** Before RUNNER_ENDED named the outcome: any final word on such an offer went to the lifecycle, which knows. */
    private static final String RUNNER_ENDED_BEFORE = "ended";
    /** The server ended the attempt under a bound lease (cancel deadline passed, hard timeout, …): nothing more is taken on it. */
    static final String SERVER_ENDED = "job_finished";

    /** A lease bound to this runner and alive, or the StaleLease that answers the message. */
    private record Held(LeaseOffer offer, LeaseMessages.StaleLease stale) {}

    /**
     * Whether {@code leaseText} is a lease this runner may still speak under: bound to it, not
     * expired, and its job still in flight under it, or canceled and still owed its CancelAck
     * (the cancel deadline has not passed). {@code finalWord} is the outcome a Complete or
     * CancelAck reports (null for other messages): on a lease the runner's own final word ended,
     * only a resend of that word is let through, to be answered as before.
     */
    private Held held(Runner runner, String leaseText, String finalWord) {
        Optional<LeaseId> lease = lease(leaseText);
        Optional<LeaseOffer> found = lease.flatMap(offers::find);
        if (found.isEmpty()) return new Held(null, stale(leaseText, LeaseMessages.Reasons.UNKNOWN));
        LeaseOffer o = found.get();
        if (o.runnerId() == null) {
            return new Held(
                    null,
                    stale(
                            leaseText,
                            o.state() == LeaseOffer.State.REVOKED
                                    ? LeaseMessages.Reasons.REVOKED
                                    : LeaseMessages.Reasons.UNKNOWN));
        }
        if (o.runnerId() != runner.id()) return new Held(null, stale(leaseText, LeaseMessages.Reasons.TAKEN));
        if (o.state() == LeaseOffer.State.ENDED) {
            if ("lease_expired".equals(o.endReason()))
                return new Held(null, stale(leaseText, LeaseMessages.Reasons.EXPIRED));
            boolean resend = finalWord != null
                    && ((RUNNER_ENDED + finalWord).equals(o.endReason()) || RUNNER_ENDED_BEFORE.equals(o.endReason()));
            return resend ? new Held(o, null) : new Held(null, stale(leaseText, LeaseMessages.Reasons.FINISHED));
        }
        Instant now = clock.instant();
        if (!o.expires().isAfter(now)) {
            // Expired even if no pump has acted yet: the seed's rule holds at this very message.
            offers.expireDue(now, maxRequeues, o.lease()).forEach(expired);
            return new Held(null, stale(leaseText, LeaseMessages.Reasons.EXPIRED));
        }
        Job job = store.runs().findJob(o.job()).orElse(null);
        if (job != null && job.holds(o.lease())) {
            if (job.status().inFlight()) return new Held(o, null);
            if (job.status() == JobStatus.CANCELED
                    && offers.cancelDeadline(o.lease()).filter(now::isBefore).isPresent()) return new Held(o, null);
        }
        // The server finalized the job under this lease (the cancel deadline passed, a hard timeout,
        // another transition), or it moved on to another lease: the lease is over, and no message
        // under it changes anything from now on (seed 003, "Stale Lease Handling"). Ending the offer
        // here makes that hold at once, and on every node, for every later message.
        offers.end(o.lease(), SERVER_ENDED);
        boolean moved = job == null || !job.holds(o.lease());
        return new Held(
                null, stale(leaseText, moved ? LeaseMessages.Reasons.SUPERSEDED : LeaseMessages.Reasons.FINISHED));
    }

    private LeaseMessages.StaleLease staleFromLifecycle(String lease, ServerMessage reply) {
        if (reply instanceof ServerMessage.Error e && e.code().equals("not_your_job"))
            return stale(lease, LeaseMessages.Reasons.TAKEN);
        if (reply instanceof ServerMessage.Error e) throw new ApiException(400, e.code(), e.message());
        if (reply instanceof ServerMessage.Stale s
                && s.reason() != null
                && s.reason().startsWith("lease")) return stale(lease, LeaseMessages.Reasons.SUPERSEDED);
        return stale(lease, LeaseMessages.Reasons.FINISHED);
    }

    private LeaseMessages.StaleLease stale(String lease, String reason) {
        metrics.stale();
        return LeaseMessages.stale(lease, reason);
    }

    private LeaseMessages.LeaseAccepted accepted(Runner runner, Job job, LeaseId lease) {
        String token = store.organizations()
                .projectUuid(job.projectId())
                .map(p -> pullTokens.issue(runner.uuid(), p, job, clock.instant()))
                .orElse(null);
        return new LeaseMessages.LeaseAccepted(
                "LeaseAccepted",
                lease.value(),
                job.uuid().toString(),
                job.attempt(),
                token,
                settings.leaseTtl().toSeconds());
    }

    private static Optional<LeaseId> lease(String text) {
        try {
            return Optional.of(LeaseId.parse(text));
        } catch (RuntimeException malformed) {
            return Optional.empty();
        }
    }

    private static long secondsUntil(Instant now, Instant then) {
        return Math.max(0, Duration.between(now, then).toSeconds());
    }

    // ---- HTTP --------------------------------------------------------------------------------------

    /** A session that stands for the runner in the lifecycle; it has no channel (sends go nowhere). */
    private RunnerSession session(Runner runner) {
        return new RunnerSession(runner, null, clock.instant());
    }

    private Runner runner(Context ctx) {
        String name = ctx.pathParam("runner");
        return runners.authenticate(name, ctx.header("Authorization"))
                .orElseThrow(() -> new ApiException(401, "unauthorized", RunnerAuthenticator.refusal(name)));
    }

    /** The body's runner_id, when given, must name the authenticated runner (its slug or UUID). */
    private static void sameRunner(Runner runner, String said) {
        if (said == null
                || said.equals(runner.slug().value())
                || said.equals(runner.uuid().toString())) return;
        throw new ApiException(
                400,
                "runner_mismatch",
                "runner_id '" + said + "' is not the runner of this key ("
                        + runner.slug().value() + ")");
    }

    /** Every message on these routes carries its lease (seed 003): one without it is not the seed's shape. */
    private <T> T read(Context ctx, Class<T> type) {
        return LeaseBodies.read(Json.readBody(ctx, maxBody), type, "lease_id");
    }

    private static void answer(Context ctx, Object message) {
        ctx.status(200).contentType("application/json").result(Wire.encode(message));
    }
}
