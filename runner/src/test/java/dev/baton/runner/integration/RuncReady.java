package dev.baton.runner.integration;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.CapabilityLabels;
import dev.baton.protocol.model.RunnerCapabilities;
import java.util.Map;

/**
 * The {@code ready} a runc agent sends, for tests that speak the channel themselves: its
 * capabilities and the label they imply, without which a paired job with a baseline image is
 * not offered (decision 0076).
 */
final class RuncReady {
    private RuncReady() {}

    static RunnerMessage.Ready ready() {
        RunnerCapabilities runc = RunnerCapabilities.executor("runc").withBaselineImage(true);
        return new RunnerMessage.Ready(
                30, "linux", "x86_64", "test", 1, null, null, runc, CapabilityLabels.reported(Map.of(), runc));
    }
}
