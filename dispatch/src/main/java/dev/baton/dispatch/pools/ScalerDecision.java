package dev.baton.dispatch.pools;

import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.PoolSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The scaler's decision for one pool (issue 43), pure: a {@link PoolQueue} in, actions out, no
 * clock but the queue's {@code now}, no I/O. docs/runner.md, "Pools", states the rules:
 *
 * <ol>
 *   <li>machines follow their runners: registered → idle, took a job → busy;
 *   <li>a spent machine (its job ended) is stopped; a machine still starting after
 *       {@code boot_timeout} is stopped and ends failed (a failed start);
 *   <li>an idle machine beyond {@code min_idle} is stopped after {@code idle_timeout};
 *   <li>a pool over {@code max} (it shrank) stops its newest starting or idle machines;
 *   <li>starts: one bound machine per waiting job not yet covered, then unbound ones up to
 *       {@code min_idle} idle-or-starting, never beyond {@code max} live machines, so the machines
 *       starting or idle never exceed the jobs that wait plus {@code min_idle}; none while the
 *       provider backs off.
 * </ol>
 */
public final class ScalerDecision {
    private ScalerDecision() {}

    public static List<ScalerAction> decide(PoolQueue q) {
        PoolSettings settings = q.pool().settings();
        List<ScalerAction> out = new ArrayList<>();
        List<MachineView> kept = new ArrayList<>();
        // Jobs whose machine failed to boot wait again (their runner is archived with the stop,
        // so the reservation lapses): first in line, as they waited longest.
        List<Long> freed = new ArrayList<>();
        for (MachineView v : q.machines()) {
            PoolMachine m = v.machine();
            PoolMachineState state = m.state();
            if (state == PoolMachineState.STOPPING) {
                // A stop that did not finish (this node or a dead one): ask again.
                out.add(new ScalerAction.Stop(
                        m, m.reason() == null ? "stopping" : m.reason(), PoolMachineState.STOPPED));
                continue;
            }
            switch (v.phase()) {
                case SPENT -> {
                    out.add(new ScalerAction.Stop(m, "its job ended", PoolMachineState.STOPPED));
                    continue;
                }
                case BUSY -> {
                    if (state != PoolMachineState.BUSY) {
                        out.add(new ScalerAction.Move(m, PoolMachineState.BUSY, v.job()));
                        m = moved(m, PoolMachineState.BUSY, q);
                    }
                }
                case IDLE -> {
                    if (state == PoolMachineState.STARTING) {
                        out.add(new ScalerAction.Move(m, PoolMachineState.IDLE, null));
                        m = moved(m, PoolMachineState.IDLE, q);
                    }
                }
                case NOT_CONNECTED -> {
                    if (state == PoolMachineState.STARTING
                            && !q.now().isBefore(m.started().plus(settings.bootTimeout()))) {
                        out.add(new ScalerAction.Stop(
                                m,
                                "did not register within boot_timeout ("
                                        + settings.bootTimeout().toSeconds() + " s)",
                                PoolMachineState.FAILED));
                        if (m.jobId() != null) freed.add(m.jobId());
                        continue;
                    }
                }
            }
            kept.add(new MachineView(m, v.phase(), v.job()));
        }

        // Idle beyond min_idle, oldest idle first, after idle_timeout.
        List<MachineView> idle = kept.stream()
                .filter(v -> v.machine().state() == PoolMachineState.IDLE)
                .toList();
        int idleKept = idle.size();
        for (MachineView v : idle) {
            if (idleKept <= settings.minIdle()) break;
            var since = v.machine().idleSince() != null
                    ? v.machine().idleSince()
                    : v.machine().started();
            if (!q.now().isBefore(since.plus(settings.idleTimeout()))) {
                out.add(new ScalerAction.Stop(v.machine(), "idle for idle_timeout", PoolMachineState.STOPPED));
                kept.remove(v);
                idleKept--;
            }
        }

        // Shrink: newest starting or idle first; busy machines finish their job.
        int over = kept.size() - settings.max();
        for (int i = kept.size() - 1; i >= 0 && over > 0; i--) {
            PoolMachine m = kept.get(i).machine();
            if (m.state() == PoolMachineState.STARTING || m.state() == PoolMachineState.IDLE) {
                out.add(new ScalerAction.Stop(
                        m, "the pool shrank (max " + settings.max() + ")", PoolMachineState.STOPPED));
                kept.remove(i);
                over--;
            }
        }

        // Starts.
        int live = kept.size();
        long idleNow = kept.stream()
                .filter(v -> v.machine().state() == PoolMachineState.IDLE)
                .count();
        List<Long> waiting = new ArrayList<>(freed);
        for (Long job : q.waitingJobs()) if (!waiting.contains(job)) waiting.add(job);
        int room = settings.max() - live;
        int forJobs = Math.min(room, waiting.size());
        // Unbound machines count toward min_idle: those starting without a job, and the idle ones.
        long unboundStarting = kept.stream()
                .filter(v -> v.machine().state() == PoolMachineState.STARTING
                        && v.machine().jobId() == null)
                .count();
        int forIdle = (int) Math.max(0, Math.min(room - forJobs, settings.minIdle() - idleNow - unboundStarting));
        if (forJobs + forIdle > 0
                && q.pool().backoffUntil() != null
                && q.now().isBefore(q.pool().backoffUntil())) {
            out.add(new ScalerAction.Blocked(
                    q.pool().reason() == null
                            ? "the provider backs off"
                            : q.pool().reason()));
            return out;
        }
        for (int i = 0; i < forJobs; i++) out.add(new ScalerAction.Start(waiting.get(i)));
        for (int i = 0; i < forIdle; i++) out.add(new ScalerAction.Start(null));
        return out;
    }

    private static PoolMachine moved(PoolMachine m, PoolMachineState to, PoolQueue q) {
        return new PoolMachine(
                m.id(),
                m.uuid(),
                m.poolId(),
                to,
                m.providerId(),
                m.runnerId(),
                m.jobId(),
                m.node(),
                m.reason(),
                m.started(),
                m.registered() == null ? q.now() : m.registered(),
                to == PoolMachineState.IDLE ? q.now() : null,
                m.ended(),
                q.now());
    }
}
