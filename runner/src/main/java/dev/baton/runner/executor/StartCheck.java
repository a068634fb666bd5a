package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;

/**
 * The agent's word once a job is prepared, just before its workload may start: go, or decline
 * with a code and reason (a spec that requires a clean machine on a noisy one). Asked on the
 * job's own thread, so a slow check never holds up the agent's loop.
 */
public record StartCheck(DeclineCode decline, String reason) {
    public static final StartCheck GO = new StartCheck(null, null);

    public static StartCheck decline(DeclineCode code, String reason) {
        return new StartCheck(code, reason);
    }

    public boolean declines() {
        return decline != null;
    }
}
