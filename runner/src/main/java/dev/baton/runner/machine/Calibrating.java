package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The noise calibration the server asks for ({@code calibrate}, decision 0062): it runs only when
 * the runner holds no job, has no result waiting and no {@code ready} outstanding (so no job can
 * arrive while it runs), and the runner asks for no job from the request until it has run. The
 * driver runs it off the loop thread (heartbeats go on) and answers {@link Input.Calibrated}.
 */
final class Calibrating {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final Claiming claiming;

    Calibrating(MachineState state, Claiming claiming) {
        this.s = state;
        this.claiming = claiming;
    }

    void onCalibrate(List<Effect> out) {
        if (s.calibrationAsked || s.calibrating) {
            log.info("the server asks for a noise calibration; one is already asked for or running");
            return;
        }
        if (s.shuttingDown || s.config.singleJob()) {
            log.info(
                    "the server asks for a noise calibration; not measuring ({})",
                    s.shuttingDown ? "shutting down" : "a single-job runner");
            return;
        }
        s.calibrationAsked = true;
        log.info("the server asks for a noise calibration: measuring once no job is held and no ready is outstanding");
        maybeStart(out);
    }

    /** Starts the asked-for calibration when nothing is held or awaited; called on the request, {@code no_job} and each tick. */
    void maybeStart(List<Effect> out) {
        if (!s.calibrationAsked || s.calibrating) return;
        if (!s.link.isConnected() || s.shuttingDown || s.updating || s.pendingUpdate != null) return;
        if (!s.jobs.isEmpty() || !s.pending.isEmpty() || claiming.readyOutstanding()) return;
        s.calibrationAsked = false;
        s.calibrating = true;
        out.add(new Effect.Calibrate());
    }

    /** The driver's calibration ended: send it (when connected; the driver resends it on each connection) and ask for work again. */
    void onCalibrated(Input.Calibrated c, List<Effect> out) {
        if (!s.calibrating) {
            s.unexpected(c, "no calibration running");
            return;
        }
        s.calibrating = false;
        if (c.calibration() != null && s.link.isConnected()) s.link.send(c.calibration(), out);
        claiming.maybeReady(out);
    }

    /** Whether a calibration is asked for or running (the machine is not at rest then). */
    boolean active() {
        return s.calibrationAsked || s.calibrating;
    }
}
