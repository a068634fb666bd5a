package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.ServerMessage;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server stops a job: {@code cancel} (stop it within the deadline, answer {@code canceled})
 * and {@code stale} (the lease is no longer ours: stop at once, report nothing). The answer goes
 * out when the executor says the job finished ({@link Finishing}).
 */
final class Canceling {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final Reporting reporting;

    Canceling(MachineState state, Reporting reporting) {
        this.s = state;
        this.reporting = reporting;
    }

    void onCancel(ServerMessage.Cancel c, List<Effect> out) {
        HeldJob h = s.jobs.get(c.job());
        if (h == null || !h.lease().matches(c.lease())) {
            if (s.pending.containsKey(c.job())) {
                log.info("cancel for job {} whose result is already waiting for its ack", c.job());
            } else {
                s.unexpected(new Input.Received(c), "no such attempt here");
            }
            return;
        }
        if (h.stop != null) {
            log.debug("job {} already stopping ({})", h.id(), h.stop);
            if (h.stop == HeldJob.StopReason.SHUTDOWN || h.stop == HeldJob.StopReason.TIMEOUT)
                h.stop = HeldJob.StopReason.CANCEL;
            return;
        }
        log.info("job {}: cancel requested ({})", h.id(), c.reason());
        h.stop = HeldJob.StopReason.CANCEL;
        long grace = Math.max(0, Math.min(s.config.stopGrace().toSeconds(), c.deadlineSeconds() - 1L));
        out.add(new Effect.StopWorkload(h.id(), Duration.ofSeconds(grace)));
    }

    void onStale(ServerMessage.Stale stale, List<Effect> out) {
        if (reporting.onStale(stale, out)) return;
        HeldJob h = s.jobs.get(stale.job());
        if (h == null || !h.lease().matches(stale.lease())) {
            s.unexpected(new Input.Received(stale), "no such attempt here");
            return;
        }
        log.warn("job {}: the server calls the lease stale ({}); stopping the work", stale.job(), stale.reason());
        boolean alreadyStopping = h.stop != null;
        h.stop = HeldJob.StopReason.STALE;
        if (!alreadyStopping) out.add(new Effect.StopWorkload(h.id(), Duration.ZERO));
    }
}
