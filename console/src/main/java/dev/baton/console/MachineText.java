package dev.baton.console;

import dev.baton.core.config.ShippedVersion;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.store.KnownMachine;

/**
 * The machine a runner last connected as, as the runners page shows it (issue 41): where it runs
 * ({@code host}, {@code os}/{@code arch}, {@code address}), which run of the agent ({@code pid},
 * {@code started}) and which version, {@code behind} when that is not the one the server ships.
 * Null fields were not reported; a runner that never said {@code ready} has no MachineText.
 */
public record MachineText(
        String host, String platform, String version, boolean behind, String pid, String started, String address) {
    static MachineText of(KnownMachine m, String shipped) {
        if (m == null) return null;
        RunnerHost h = m.host();
        String platform = h.os() == null && h.arch() == null
                ? null
                : (h.os() == null ? "?" : h.os()) + "/" + (h.arch() == null ? "?" : h.arch());
        return new MachineText(
                h.host(),
                platform,
                h.version(),
                Boolean.TRUE.equals(ShippedVersion.behind(h.version(), shipped)),
                h.pid() == null ? null : String.valueOf(h.pid()),
                h.agentStarted() == null ? null : Format.time(h.agentStarted()),
                h.address());
    }
}
