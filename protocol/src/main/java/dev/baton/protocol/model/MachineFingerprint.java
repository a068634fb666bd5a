package dev.baton.protocol.model;

import java.time.Instant;
import java.util.List;

/**
 * The state of a runner's machine when an attempt was about to start: what a benchmark number
 * needs beside it to mean anything (issue 19). A null field is unknown — the runner could not
 * read it (no cpufreq in a VM, no SMT control) — and is never guessed. Sent with {@code running}
 * (and with a {@code noisy_machine} decline), stored on the attempt, shown with the job and its
 * report. Every text and list is bounded so the stored JSON stays small.
 *
 * @param taken when the runner read it
 * @param cpuModel {@code model name} of /proc/cpuinfo
 * @param cpus online logical CPUs
 * @param jobCpus the CPUs given to the job (a kernel cpu list such as {@code 1-3})
 * @param governor the cpufreq governor of the job's CPUs; several differing ones comma-separated
 * @param turbo whether turbo/boost is enabled
 * @param smt the kernel's SMT control ({@code on}, {@code off}, {@code forceoff}, {@code notsupported}, …)
 * @param kernel the kernel release
 * @param memoryTotal bytes of RAM
 * @param memoryAvailable bytes available for new work when read
 * @param swapTotal bytes of swap configured
 * @param loadAverage the 1, 5 and 15 minute load averages
 * @param jobCpusBusy the share (0–1) of the job's CPUs' time spent busy during a short sample
 *     just before the job started: other processes running where the job will run
 * @param executor how the runner runs jobs ({@code process}, {@code runc}, {@code microvm})
 * @param executorVersion the executor's own version (runc's, QEMU's), or null for the built-in one
 * @param runnerVersion the runner agent's version
 * @param warnings settings that add noise to measurements; empty when the machine is clean
 */
public record MachineFingerprint(
        Instant taken,
        String cpuModel,
        Integer cpus,
        String jobCpus,
        String governor,
        Boolean turbo,
        String smt,
        String kernel,
        Long memoryTotal,
        Long memoryAvailable,
        Long swapTotal,
        List<Double> loadAverage,
        Double jobCpusBusy,
        String executor,
        String executorVersion,
        String runnerVersion,
        List<Warning> warnings) {

    /** The longest text field a fingerprint carries (the runner cuts longer values). */
    public static final int MAX_TEXT = 256;

    public static final int MAX_WARNINGS = 16;

    public MachineFingerprint {
        if (taken == null) throw new IllegalArgumentException("fingerprint: taken is required");
        for (String text :
                new String[] {cpuModel, jobCpus, governor, smt, kernel, executor, executorVersion, runnerVersion}) {
            if (text != null && text.length() > MAX_TEXT)
                throw new IllegalArgumentException("fingerprint: a text field is longer than " + MAX_TEXT);
        }
        if (cpus != null && cpus < 1) throw new IllegalArgumentException("fingerprint: cpus must be at least 1");
        for (Long bytes : new Long[] {memoryTotal, memoryAvailable, swapTotal}) {
            if (bytes != null && bytes < 0)
                throw new IllegalArgumentException("fingerprint: sizes must not be negative");
        }
        if (loadAverage != null) {
            if (loadAverage.size() != 3)
                throw new IllegalArgumentException("fingerprint: load_average has three values");
            for (Double l : loadAverage) {
                if (l == null || l < 0 || l.isNaN())
                    throw new IllegalArgumentException("fingerprint: load averages are non-negative numbers");
            }
            loadAverage = List.copyOf(loadAverage);
        }
        if (jobCpusBusy != null && !(jobCpusBusy >= 0 && jobCpusBusy <= 1)) {
            throw new IllegalArgumentException("fingerprint: job_cpus_busy must be between 0 and 1");
        }
        warnings = warnings == null ? List.of() : List.copyOf(warnings);
        if (warnings.size() > MAX_WARNINGS)
            throw new IllegalArgumentException("fingerprint: at most " + MAX_WARNINGS + " warnings");
    }

    /** True when nothing on the machine was found to add noise. */
    public boolean clean() {
        return warnings.isEmpty();
    }

    /**
     * A setting that adds noise. {@code code} is one of {@link NoiseCode}'s wire names (a newer
     * runner may send others); {@code message} says what was found, in one sentence.
     */
    public record Warning(String code, String message) {
        public Warning {
            if (code == null || code.isBlank() || code.length() > 64)
                throw new IllegalArgumentException("fingerprint: a warning needs a code of at most 64 characters");
            if (message == null || message.length() > MAX_TEXT)
                throw new IllegalArgumentException(
                        "fingerprint: a warning needs a message of at most " + MAX_TEXT + " characters");
        }

        public Warning(NoiseCode code, String message) {
            this(code.wireName(), message);
        }
    }
}
