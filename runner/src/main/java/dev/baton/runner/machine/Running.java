package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.machine.OutputChunk;
import dev.baton.protocol.message.RunnerMessage;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Running phase, and keeping every held job alive: heartbeats (or {@code preparing} keep-alives)
 * on each tick, the job's local timeout, and its live output streamed as {@code log} messages
 * within the {@link LogBudget}.
 */
final class Running {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final Claiming claiming;
    private final LogBudget logBudget;

    Running(MachineState state, Claiming claiming, LogBudget logBudget) {
        this.s = state;
        this.claiming = claiming;
        this.logBudget = logBudget;
    }

    /** On the tick, while connected: one keep-alive per held job, or a bare heartbeat when idle. */
    void heartbeats(List<Effect> out) {
        if (s.jobs.isEmpty()) {
            out.add(new Effect.Send(new RunnerMessage.Heartbeat(null, null, claiming.imagesToReport())));
        }
        for (HeldJob h : s.jobs.values()) {
            if (h.stop == HeldJob.StopReason.STALE) continue;
            if (h.phase == HeldJob.Phase.RUNNING)
                s.link.send(new RunnerMessage.Heartbeat(h.id(), h.lease(), claiming.imagesToReport()), out);
            else s.link.send(new RunnerMessage.Preparing(h.id(), h.lease(), h.progress), out);
        }
    }

    /** On the tick: a running job past its own timeout is stopped (reported failed when it finishes). */
    void enforceTimeouts(List<Effect> out) {
        for (HeldJob h : s.jobs.values()) {
            if (h.phase == HeldJob.Phase.RUNNING
                    && h.stop == null
                    && h.deadline != null
                    && !s.now.isBefore(h.deadline)) {
                log.info("job {}: local timeout of {} s reached; stopping it", h.id(), h.job.timeout());
                h.stop = HeldJob.StopReason.TIMEOUT;
                out.add(new Effect.StopWorkload(h.id(), s.config.stopGrace()));
            }
        }
    }

    /**
     * Live output: each chunk goes out as a {@code log} message when the job is running, the
     * channel is up, the server keeps up (at most {@link LogBudget#maxUnacked()} of the job's
     * messages unacknowledged) and the rate budget has room; otherwise its bytes are counted and
     * announced by one {@code dropped} marker for that stream, sent before the stream's next text
     * that fits the budget (or on a tick once the output has been quiet and the budget is full). Logs are
     * never written to the outbox or resent: the terminal result carries the whole output.
     */
    void onOutput(Input.Output o, List<Effect> out) {
        if (o.now().isAfter(s.now)) s.now = o.now();
        HeldJob h = s.jobs.get(o.job());
        if (h == null || h.stop == HeldJob.StopReason.STALE) return; // ended or not ours any more: nobody to tell
        LiveLog live = h.live;
        live.refill(s.now, logBudget);
        for (OutputChunk c : o.chunks()) {
            var key = new LiveLog.Key(c.iteration(), c.stream());
            if (c.isDrop()) {
                live.drop(key, c.dropped());
                continue;
            }
            if (canStream(h) && live.take(c.bytes())) {
                // The marker goes right before the stream's next text, so entries stay in stream order.
                if (live.hasDrop(key)) announceDrop(h, key, out);
                s.link.send(
                        RunnerMessage.Log.text(h.id(), h.lease(), live.takeSeq(), c.stream(), c.iteration(), c.text()),
                        out);
            } else {
                live.drop(key, c.bytes());
            }
        }
    }

    private boolean canStream(HeldJob h) {
        if (!s.link.isConnected() || h.phase != HeldJob.Phase.RUNNING || h.stop == HeldJob.StopReason.STALE)
            return false;
        return s.link.unacknowledged(h.id()) < logBudget.maxUnacked();
    }

    /**
     * On the tick: once the output has been quiet long enough for the rate budget to fill up
     * again, the markers of drops that no later text announced go out (one per stream).
     */
    void announceDrops(List<Effect> out) {
        for (HeldJob h : s.jobs.values()) announceDrops(h, out);
    }

    private void announceDrops(HeldJob h, List<Effect> out) {
        if (h.live.drops().isEmpty()) return;
        h.live.refill(s.now, logBudget);
        if (!h.live.isFull(logBudget)) return;
        for (var key : List.copyOf(h.live.drops().keySet())) {
            if (!canStream(h)) return;
            announceDrop(h, key, out);
        }
    }

    private void announceDrop(HeldJob h, LiveLog.Key key, List<Effect> out) {
        long bytes = h.live.takeDrop(key);
        s.link.send(
                RunnerMessage.Log.dropped(h.id(), h.lease(), h.live.takeSeq(), key.stream(), key.iteration(), bytes),
                out);
    }
}
