package dev.baton.router;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;

/** The job and lease a runner's message is about (null for {@code ready}, {@code calibration} and a bare heartbeat). */
final class RunnerMessages {
    private RunnerMessages() {}

    static JobUuid job(RunnerMessage m) {
        return switch (m) {
            case RunnerMessage.JobScoped s -> s.job();
            case RunnerMessage.Heartbeat h -> h.job();
            case RunnerMessage.PullToken p -> p.job();
            case RunnerMessage.Calibration c -> null;
            case RunnerMessage.Ready r -> null;
        };
    }

    static LeaseId lease(RunnerMessage m) {
        return switch (m) {
            case RunnerMessage.JobScoped s -> s.lease();
            case RunnerMessage.Heartbeat h -> h.lease();
            case RunnerMessage.PullToken p -> p.lease();
            case RunnerMessage.Calibration c -> null;
            case RunnerMessage.Ready r -> null;
        };
    }
}
