package dev.baton.runner.machine;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.JobTimeout;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Claimed jobs for tests. */
public final class Jobs {
    private Jobs() {}

    public static SpecView spec(Architecture arch, int cpu, long memory, boolean network) {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        return new SpecView(SpecUuid.random(), "test", "test", arch, cpu, memory, 1L << 30, network, t, t, null);
    }

    public static ClaimedJob claimed(int timeoutSeconds) {
        return claimed(
                spec(Architecture.ofHost().orElseThrow(), 1, 256L << 20, false),
                command(List.of("sh", "-c", "echo hi"), timeoutSeconds, 1, List.of()));
    }

    public static ClaimedJob claimed(SpecView spec, JobConfig config) {
        return new ClaimedJob(
                JobUuid.random(),
                LeaseId.random(),
                1,
                spec,
                config,
                "pull-token",
                config.timeout().seconds(),
                Instant.parse("2026-01-01T00:00:00Z"));
    }

    public static JobConfig command(List<String> cmd, int timeoutSeconds, int iterations, List<String> filePaths) {
        return new JobConfig(
                null,
                ProjectUuid.random(),
                null,
                null,
                cmd,
                Map.of(),
                JobTimeout.of(timeoutSeconds),
                filePaths,
                iterations);
    }
}
