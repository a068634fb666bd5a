package dev.baton.runner.machine;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.ServerMessage;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Self-update: the server's {@code update} stops new claims; once no job is held the driver is
 * asked to install it, and the agent exits to be restarted (or keeps running if it failed).
 */
final class Updating {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    private final Claiming claiming;

    Updating(MachineState state, Claiming claiming) {
        this.s = state;
        this.claiming = claiming;
    }

    void onUpdate(ServerMessage.Update u, List<Effect> out) {
        if (s.updating) {
            s.unexpected(new Input.Received(u), "an update is already being installed");
            return;
        }
        s.pendingUpdate = u;
        log.info("update to version {} requested; taking no new jobs until it is installed", u.version());
        maybeApplyUpdate(out);
    }

    /** Hands the requested update to the driver once no job is held. */
    void maybeApplyUpdate(List<Effect> out) {
        if (s.pendingUpdate == null || s.updating || !s.jobs.isEmpty()) return;
        s.updating = true;
        out.add(new Effect.ApplyUpdate(s.pendingUpdate));
        s.pendingUpdate = null;
    }

    void onInstalled(Input.UpdateInstalled u, List<Effect> out) {
        if (!s.updating) {
            s.unexpected(u, "no update in progress");
            return;
        }
        s.exit(RunnerMachine.EXIT_RESTART, "updated to " + u.version() + "; restarting", out);
    }

    void onFailed(Input.UpdateFailed u, List<Effect> out) {
        if (!s.updating) {
            s.unexpected(u, "no update in progress");
            return;
        }
        s.updating = false;
        log.error("update to {} failed, still running the current version: {}", u.version(), u.reason());
        claiming.maybeReady(out);
    }
}
