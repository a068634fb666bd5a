package dev.baton.protocol.model;

/**
 * What a runner can run jobs with, as detected at its start and sent with {@code ready}: the
 * executor ({@code process}, {@code runc}, {@code microvm}) and, for the microVM executor, the
 * hypervisor ({@code qemu-microvm}) and the accelerator it really uses ({@code kvm} or
 * {@code tcg}; KVM only when a probe guest booted with it). Informational: the server shows it
 * and logs it, dispatch does not use it. Fields that do not apply are null (absent on the wire).
 */
public record RunnerCapabilities(String executor, String hypervisor, String accelerator) {
    /** Longest accepted value of any field; longer ones are cut, never refused (it is only shown). */
    public static final int MAX_LENGTH = 64;

    /** Only the executor (process and runc). */
    public static RunnerCapabilities executor(String name) {
        return new RunnerCapabilities(name, null, null);
    }

    /** The same with every field cut to {@link #MAX_LENGTH} characters, for showing what a runner sent. */
    public RunnerCapabilities bounded() {
        return new RunnerCapabilities(cut(executor), cut(hypervisor), cut(accelerator));
    }

    private static String cut(String s) {
        return s == null || s.length() <= MAX_LENGTH ? s : s.substring(0, MAX_LENGTH);
    }
}
