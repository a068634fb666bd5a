package dev.baton.protocol.model;

/**
 * What a runner can run jobs with, as detected at its start and sent with {@code ready}: the
 * executor ({@code process}, {@code runc}, {@code microvm}), for the microVM executor the
 * hypervisor ({@code qemu-microvm}) and the accelerator it really uses ({@code kvm} or
 * {@code tcg}; KVM only when a probe guest booted with it), and whether it runs a paired job's
 * baseline in an image of its own ({@code baseline_image}, issue 45: true for runc and microvm).
 * The server shows it and logs it; dispatch reads none of it, only the label the runner reports
 * for {@code baseline_image} ({@link CapabilityLabels}). Fields that do not
 * apply, or that an older runner does not know, are null (absent on the wire).
 */
public record RunnerCapabilities(String executor, String hypervisor, String accelerator, Boolean baselineImage) {
    /** Longest accepted value of any field; longer ones are cut, never refused (it is only shown). */
    public static final int MAX_LENGTH = 64;

    /** Without {@code baseline_image}, as a runner from before issue 45 reports. */
    public RunnerCapabilities(String executor, String hypervisor, String accelerator) {
        this(executor, hypervisor, accelerator, null);
    }

    /** Only the executor (process and runc). */
    public static RunnerCapabilities executor(String name) {
        return new RunnerCapabilities(name, null, null);
    }

    /** The same, saying whether the executor runs a paired job's baseline in an image of its own. */
    public RunnerCapabilities withBaselineImage(boolean runs) {
        return new RunnerCapabilities(executor, hypervisor, accelerator, runs);
    }

    /** The same with every field cut to {@link #MAX_LENGTH} characters, for showing what a runner sent. */
    public RunnerCapabilities bounded() {
        return new RunnerCapabilities(cut(executor), cut(hypervisor), cut(accelerator), baselineImage);
    }

    private static String cut(String s) {
        return s == null || s.length() <= MAX_LENGTH ? s : s.substring(0, MAX_LENGTH);
    }
}
