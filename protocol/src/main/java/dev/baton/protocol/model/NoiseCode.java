package dev.baton.protocol.model;

import java.util.Locale;

/** The kinds of {@link MachineFingerprint.Warning}: settings that make measurements noisy. */
public enum NoiseCode {
    /** A job CPU's frequency governor is not {@code performance} (ondemand, powersave, schedutil, …). */
    GOVERNOR,
    /** There is no cpufreq on the job's CPUs (a VM, no driver): the frequency policy cannot be checked. */
    FREQUENCY_UNKNOWN,
    /** Turbo/boost is on: the clock depends on temperature and on what the other cores do. */
    TURBO,
    /** Simultaneous multithreading is active: a sibling thread shares the job's cores. */
    SMT,
    /** Swap is on: the job's memory may be paged out. */
    SWAP,
    /** Other processes kept the job's CPUs busy just before it started. */
    BUSY_CPUS;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
