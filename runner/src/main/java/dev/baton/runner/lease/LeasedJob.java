package dev.baton.runner.lease;

import dev.baton.protocol.model.ClaimedJob;
import dev.baton.runner.executor.Execution;
import java.time.Duration;
import java.time.Instant;

/**
 * One job this runner holds under a bound lease, from LeaseAccepted until its final word is in the
 * outbox ({@link FinalMessageOutbox} delivers it from there). Threads meet here (the execution's,
 * the heartbeat tick, the control subject's), so every method is synchronized; each decision ("stop now", "say CancelAck", "say nothing: the lease
 * is stale") is taken once.
 */
final class LeasedJob {
    /** How the runner ends the attempt with the server. */
    enum Ending {
        COMPLETE,
        CANCEL_ACK,
        NOTHING
    }

    final LeaseGrant grant;
    final ClaimedJob job;
    private Execution execution;
    private boolean prepared;
    private boolean startAsked;
    private Instant started;
    private Instant renewed;
    private Instant nextHeartbeat;
    private boolean heartbeating;
    private boolean cancelRequested;
    private boolean stale;
    private LeaseOutcome.Stop stop;
    private boolean stopAsked;
    private boolean ended;

    LeasedJob(LeaseGrant grant, ClaimedJob job, Instant accepted) {
        this.grant = grant;
        this.job = job;
        this.renewed = accepted;
        this.nextHeartbeat = accepted.plus(grant.heartbeatInterval());
    }

    String lease() {
        return grant.leaseId();
    }

    /** The execution exists; start it if the executor is already prepared. */
    synchronized void execution(Execution e) {
        execution = e;
        startIfReady();
    }

    synchronized void prepared() {
        prepared = true;
        startIfReady();
    }

    private void startIfReady() {
        if (execution != null && prepared && !startAsked && !stopAsked) {
            startAsked = true;
            execution.start();
        }
    }

    synchronized void started(Instant at) {
        started = at;
    }

    synchronized String phase() {
        return started != null ? "running" : "preparing";
    }

    // ---- heartbeats ---------------------------------------------------------------------------------

    /** True when a heartbeat is due now and none is on its way (the caller then sends one). */
    synchronized boolean heartbeatDue(Instant now) {
        if (ended || stale || heartbeating || now.isBefore(nextHeartbeat)) return false;
        heartbeating = true;
        return true;
    }

    /** The server renewed the lease at {@code now} for {@code ttl}. */
    synchronized void renewed(Instant now) {
        renewed = now;
        heartbeatDone(now);
    }

    synchronized void heartbeatDone(Instant now) {
        heartbeating = false;
        nextHeartbeat = now.plus(grant.heartbeatInterval());
    }

    /** No renewal for a whole lease TTL: the server has expired the lease by now, answered or not. */
    synchronized boolean leaseSurelyExpired(Instant now) {
        return !now.isBefore(renewed.plus(grant.leaseTtl()));
    }

    // ---- stopping -----------------------------------------------------------------------------------

    /** CancelRequested (control subject or HeartbeatAck): stop within the deadline; the attempt ends with CancelAck. */
    synchronized boolean cancel(Duration grace) {
        if (cancelRequested || stale || ended) return false;
        cancelRequested = true;
        stopExecution(grace);
        return true;
    }

    /** StaleLease, or a lease surely expired: stop at once and never send a final word under it. */
    synchronized boolean stale() {
        if (stale || ended) return false;
        stale = true;
        stopExecution(Duration.ZERO);
        return true;
    }

    /** The runner's own stop (timeout, shutdown); the first reason wins. */
    synchronized boolean stop(LeaseOutcome.Stop why, Duration grace) {
        if (stop != null || cancelRequested || stale || ended) return false;
        stop = why;
        stopExecution(grace);
        return true;
    }

    private void stopExecution(Duration grace) {
        stopAsked = true;
        if (execution != null) execution.stop(grace);
    }

    synchronized boolean pastTimeout(Instant now) {
        return started != null && stop == null && !now.isBefore(started.plusSeconds(grant.maxRuntimeSeconds()));
    }

    synchronized LeaseOutcome.Stop stopReason() {
        return stop;
    }

    synchronized Ending ending() {
        if (stale) return Ending.NOTHING;
        return cancelRequested ? Ending.CANCEL_ACK : Ending.COMPLETE;
    }

    synchronized Instant startedAt() {
        return started;
    }

    /** Returns true the first time: the slot is free again. */
    synchronized boolean end() {
        if (ended) return false;
        ended = true;
        return true;
    }

    synchronized boolean ended() {
        return ended;
    }
}
