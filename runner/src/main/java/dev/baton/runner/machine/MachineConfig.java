package dev.baton.runner.machine;

import dev.baton.protocol.model.CapabilityLabels;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Labels;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The runner's fixed settings as the machine needs them.
 *
 * @param slots jobs run at once, never more (seed 002 concurrency)
 * @param pollTimeoutSeconds sent with {@code ready} (1–900)
 * @param grace how long in-flight jobs may finish after SIGTERM before they are stopped
 * @param stopGrace TERM-to-KILL time when the runner stops a workload on its own
 * @param maxSends how many times a terminal result is sent (over reconnects) before it is dropped
 * @param backoffBase first reconnect delay; doubles per failed attempt up to {@code backoffMax}
 * @param maxMessageBytes the channel's message limit; results are cut to fit it
 * @param capabilities what the executor detected, sent with every {@code ready} (null: not sent)
 * @param labels the runner's own {@code key=value} labels, sent with every {@code ready} with the ones its capabilities imply ({@link #reportedLabels}; docs/scheduling.md)
 * @param singleJob take one job, report it and exit ({@code --ephemeral}, issue 43)
 */
public record MachineConfig(
        int slots,
        int pollTimeoutSeconds,
        String os,
        Optional<Architecture> arch,
        String version,
        Duration grace,
        Duration stopGrace,
        int maxSends,
        Duration backoffBase,
        Duration backoffMax,
        int maxMessageBytes,
        RunnerCapabilities capabilities,
        Map<String, String> labels,
        boolean singleJob) {

    /** Not a single-job runner (as before issue 43). */
    public MachineConfig(
            int slots,
            int pollTimeoutSeconds,
            String os,
            Optional<Architecture> arch,
            String version,
            Duration grace,
            Duration stopGrace,
            int maxSends,
            Duration backoffBase,
            Duration backoffMax,
            int maxMessageBytes,
            RunnerCapabilities capabilities,
            Map<String, String> labels) {
        this(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                labels,
                false);
    }

    /** Without labels (as before label routing). */
    public MachineConfig(
            int slots,
            int pollTimeoutSeconds,
            String os,
            Optional<Architecture> arch,
            String version,
            Duration grace,
            Duration stopGrace,
            int maxSends,
            Duration backoffBase,
            Duration backoffMax,
            int maxMessageBytes,
            RunnerCapabilities capabilities) {
        this(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                Map.of());
    }

    public MachineConfig {
        labels = Labels.of(labels);
        CapabilityLabels.reported(labels, capabilities); // refused at start, not at the first ready
        if (slots < 1) throw new IllegalArgumentException("slots must be at least 1");
        if (maxSends < 1) throw new IllegalArgumentException("maxSends must be at least 1");
    }

    /**
     * The labels {@code ready} carries: the runner's own with the ones its executor's capabilities
     * imply ({@link CapabilityLabels}). With capabilities the whole set is always sent, empty too,
     * so that a runner that no longer runs baseline images clears its earlier report; without
     * them (tests' bare machines) only labels of its own, or none (null: not sent).
     */
    public Map<String, String> reportedLabels() {
        if (capabilities == null) return labels.isEmpty() ? null : labels;
        return CapabilityLabels.reported(labels, capabilities);
    }

    public static MachineConfig defaults(String version) {
        return new MachineConfig(
                1,
                30,
                System.getProperty("os.name", "linux").toLowerCase(java.util.Locale.ROOT),
                Architecture.ofHost(),
                version,
                Duration.ofSeconds(25),
                Duration.ofSeconds(5),
                10,
                Duration.ofMillis(500),
                Duration.ofSeconds(30),
                8 << 20,
                null);
    }

    public MachineConfig withSlots(int n) {
        return new MachineConfig(
                n,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                labels,
                singleJob);
    }

    public MachineConfig withGrace(Duration g) {
        return new MachineConfig(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                g,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                labels,
                singleJob);
    }

    public MachineConfig withMaxSends(int n) {
        return new MachineConfig(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                n,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                labels,
                singleJob);
    }

    public MachineConfig withMaxMessageBytes(int n) {
        return new MachineConfig(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                n,
                capabilities,
                labels,
                singleJob);
    }

    public MachineConfig withPollTimeout(int seconds) {
        return new MachineConfig(
                slots,
                seconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                labels,
                singleJob);
    }

    public MachineConfig withCapabilities(RunnerCapabilities c) {
        return new MachineConfig(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                c,
                labels,
                singleJob);
    }

    public MachineConfig withLabels(Map<String, String> l) {
        return new MachineConfig(
                slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                l,
                singleJob);
    }

    /** A single-job runner: one job, reported, then exit (one slot). */
    public MachineConfig withSingleJob(boolean single) {
        return new MachineConfig(
                single ? 1 : slots,
                pollTimeoutSeconds,
                os,
                arch,
                version,
                grace,
                stopGrace,
                maxSends,
                backoffBase,
                backoffMax,
                maxMessageBytes,
                capabilities,
                labels,
                single);
    }
}
