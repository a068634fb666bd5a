package dev.baton.protocol.message;

import java.util.Locale;

/**
 * Why an attempt failed, as the runner saw it: carried in {@code failed} (and the NATS transport's
 * {@code Complete}) as {@code failure}, beside the human {@code error}, so that the server can
 * tell a fault of the runner's machine from the job's own failure without parsing prose (issue
 * 41). Which codes are the machine's is decided in one place on the server (the store's
 * {@code EndReason}); the runner only says what happened.
 */
public enum FailureCode {
    /** An iteration exited with a non-zero code. */
    EXIT_CODE,
    /** The job ran past its timeout. */
    TIMEOUT,
    /** The workload was killed at its memory limit. */
    OUT_OF_MEMORY,
    /** The workload stopped although nobody asked it to. */
    STOPPED,
    /** The executor failed (runtime crash, sandbox error) or could not start the workload. */
    EXECUTOR_ERROR,
    /** The runner shut down and the job did not finish within the grace period. */
    RUNNER_SHUTDOWN,
    /** The runner's agent restarted while the job ran. */
    RUNNER_RESTARTED,
    /**
     * The image could not be fetched, the disk full while pulling included (the NATS transport, where a
     * preparation failure fails the attempt; the runner channel declines instead).
     */
    PULL_FAILED,
    /** A layer could not be unpacked, the disk full while unpacking included (the NATS transport). */
    UNPACK_FAILED,
    /** The job's virtual machine did not boot (the NATS transport). */
    VM_BOOT_FAILED,
    /** The image was refused: invalid manifest, bad digest, wrong architecture (the NATS transport). */
    IMAGE_REFUSED,
    /** Neither the image nor the job names a command (the NATS transport). */
    NO_COMMAND,
    /** The executor runs only images and the job has none (the NATS transport). */
    IMAGE_REQUIRED,
    /** The spec requires a clean machine and this one is noisy (the NATS transport). */
    NOISY_MACHINE,
    /** Anything else, and any code this version does not know. */
    OTHER;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The code of a wire name; null when absent (an older runner), {@link #OTHER} when unknown. */
    public static FailureCode parse(String wire) {
        if (wire == null || wire.isBlank()) return null;
        for (FailureCode c : values()) {
            if (c.wireName().equals(wire)) return c;
        }
        return OTHER;
    }

    /**
     * The failure of a job that could not be prepared, from the decline code the runner channel
     * would have sent instead (the NATS transport has no decline: its attempt starts at AckLease).
     */
    public static FailureCode ofDecline(DeclineCode decline) {
        if (decline == null) return OTHER;
        return switch (decline) {
            case PULL_FAILED -> PULL_FAILED;
            case UNPACK_FAILED -> UNPACK_FAILED;
            case EXECUTOR_ERROR -> EXECUTOR_ERROR;
            case VM_BOOT_FAILED -> VM_BOOT_FAILED;
            case IMAGE_REFUSED -> IMAGE_REFUSED;
            case NO_COMMAND -> NO_COMMAND;
            case IMAGE_REQUIRED -> IMAGE_REQUIRED;
            case NOISY_MACHINE -> NOISY_MACHINE;
            case SHUTTING_DOWN -> RUNNER_SHUTDOWN;
            case OTHER -> OTHER;
        };
    }
}
