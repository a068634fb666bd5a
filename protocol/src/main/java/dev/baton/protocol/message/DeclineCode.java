package dev.baton.protocol.message;

import java.util.Locale;

/**
 * Why a runner declined a job, carried in {@code declined} beside the human reason so that the
 * server can show it, count it and explain a waiting job without parsing prose.
 */
public enum DeclineCode {
    /** The image was refused (unsupported media type, invalid manifest, bad digest). */
    IMAGE_REFUSED,
    /** The image could not be fetched (registry error, pull denied, network). */
    PULL_FAILED,
    /** A layer could not be unpacked (corrupt archive, path escape, disk full). */
    UNPACK_FAILED,
    /** Neither the image nor the job names a command. */
    NO_COMMAND,
    /** The runner's executor runs only images and the job has none. */
    IMAGE_REQUIRED,
    /** The executor could not set the job up (runtime missing, sandbox error). */
    EXECUTOR_ERROR,
    /**
     * The job's spec requires a clean machine fingerprint and this machine has settings that add
     * noise (governor, turbo, SMT, swap, busy CPUs) or cannot show that it has none.
     */
    NOISY_MACHINE,

    /**
     * The job's virtual machine did not boot (the hypervisor exited, or the guest hung before it
     * could run anything), on every attempt: a fault of the runner's machine, not of the job.
     */
    VM_BOOT_FAILED,
    /** The runner is stopping and takes no new work. */
    SHUTTING_DOWN,
    /** Anything else, and any code this version does not know. */
    OTHER;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The code of a wire name; null, blank or unknown names are {@link #OTHER}. */
    public static DeclineCode parse(String wire) {
        if (wire == null) return OTHER;
        for (DeclineCode c : values()) {
            if (c.wireName().equals(wire)) return c;
        }
        return OTHER;
    }
}
