package dev.baton.dispatch.channel;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.NoiseFigure;
import dev.baton.store.NoiseReading;

/** A runner's {@code calibration} message as the store keeps it: one CV per workload, the fingerprint as JSON. */
final class RunnerNoiseReadings {
    private RunnerNoiseReadings() {}

    static NoiseReading of(RunnerMessage.Calibration c) {
        return new NoiseReading(
                c.measured(),
                cv(c, "cpu"),
                cv(c, "memory"),
                cv(c, "file"),
                c.figures().stream().mapToInt(NoiseFigure::repetitions).max().orElseThrow(),
                c.fingerprint() == null ? null : Wire.encode(c.fingerprint()));
    }

    private static Double cv(RunnerMessage.Calibration c, String workload) {
        return c.figures().stream()
                .filter(f -> f.workload().equals(workload))
                .map(NoiseFigure::cv)
                .findFirst()
                .orElse(null);
    }
}
