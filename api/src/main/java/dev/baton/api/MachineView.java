package dev.baton.api;

import dev.baton.store.KnownMachine;
import java.time.Instant;

/**
 * A machine a runner connected as, or that ran an attempt (issue 41): what its agent reported in
 * {@code ready}, the address its connection came from as the server saw it (behind a router: as
 * the router saw it), and when the server first recorded it.
 */
public record MachineView(
        String os,
        String arch,
        String version,
        String host,
        Long pid,
        Instant agentStarted,
        String address,
        Instant seen) {
    static MachineView of(KnownMachine m) {
        if (m == null) return null;
        var h = m.host();
        return new MachineView(
                h.os(), h.arch(), h.version(), h.host(), h.pid(), h.agentStarted(), h.address(), m.seen());
    }
}
