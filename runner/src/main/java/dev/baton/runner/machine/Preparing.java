package dev.baton.runner.machine;

import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.RunnerMessage;
import java.util.List;

/**
 * Preparing phase: the executor pulls and unpacks ({@code preparing} keep-alives carry its
 * progress), says the job is prepared (the workload may start unless a stop came meanwhile), and
 * that the workload started, which starts the job's clock and its {@code running} phase. A
 * preparation that fails ends the job: see {@link Finishing}.
 */
final class Preparing {
    private final MachineState s;

    Preparing(MachineState state) {
        this.s = state;
    }

    void onProgress(Input.PrepareProgress p, List<Effect> out) {
        HeldJob h = s.jobs.get(p.job());
        if (h == null || h.phase != HeldJob.Phase.PREPARING) {
            s.unexpected(p, h == null ? "unknown job" : "job is " + h.phase);
            return;
        }
        h.progress = p.message();
        if (s.link.isConnected() && h.stop == null)
            s.link.send(new RunnerMessage.Preparing(h.id(), h.lease(), h.progress), out);
    }

    void onPrepared(Input.Prepared p, List<Effect> out) {
        HeldJob h = s.jobs.get(p.job());
        if (h == null || h.phase != HeldJob.Phase.PREPARING) {
            s.unexpected(p, h == null ? "unknown job" : "job is " + h.phase);
            return;
        }
        h.phase = HeldJob.Phase.PREPARED;
        h.fingerprint = p.fingerprint();
        // A stop requested meanwhile was already handed to the executor, which answers Finished.
        if (h.stop == null) out.add(new Effect.StartWorkload(h.id()));
    }

    void onStarted(Input.Started started, List<Effect> out) {
        HeldJob h = s.jobs.get(started.job());
        if (h == null || h.phase != HeldJob.Phase.PREPARED) {
            s.unexpected(started, h == null ? "unknown job" : "job is " + h.phase);
            return;
        }
        h.phase = HeldJob.Phase.RUNNING;
        h.deadline = started.now().plusSeconds(h.job.timeout());
        out.add(new Effect.WriteInflight(new InflightRecord(h.id(), h.lease(), started.now())));
        if (h.stop == null && s.link.isConnected())
            s.link.send(new RunnerMessage.Running(h.id(), h.lease(), h.fingerprint), out);
    }
}
