package dev.baton.store;

import dev.baton.protocol.message.FailureCode;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Whose fault a failed attempt was, the classes a retry policy's {@code on} names (issue 41):
 * the runner was lost, the runner's machine failed (infrastructure), or the job itself failed.
 * This is the one place where what a runner reports is classified
 * (docs/decisions/0039-retry-classification.md).
 */
public enum FailureKind {
    /** The server lost the runner after the start: heartbeat or disconnect timeout, an expired lease, a router's word. */
    RUNNER_LOST,
    /** The runner reported its own fault: pull, unpack, executor, VM boot, its shutdown or restart mid-job. */
    INFRASTRUCTURE,
    /** The job's own failure: a non-zero exit, its timeout, out of memory, or a failure that gives no code. */
    FAILURE;

    /** What the runner reports that is the machine's fault, not the job's. */
    private static final Set<FailureCode> MACHINE_FAULTS = EnumSet.of(
            FailureCode.EXECUTOR_ERROR,
            FailureCode.RUNNER_SHUTDOWN,
            FailureCode.RUNNER_RESTARTED,
            FailureCode.PULL_FAILED,
            FailureCode.UNPACK_FAILED,
            FailureCode.VM_BOOT_FAILED,
            FailureCode.NOISY_MACHINE);

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind of a wire name, or null when there is none by that name. */
    public static FailureKind parse(String wire) {
        if (wire == null) return null;
        for (FailureKind k : values()) {
            if (k.wireName().equals(wire)) return k;
        }
        return null;
    }

    /**
     * The kind of an attempt that ended {@code outcome} with the runner's {@code code} (null: it
     * gave none, as older runners do). A lost runner is {@link #RUNNER_LOST} whatever was said;
     * an unknown or absent code is the job's {@link #FAILURE}: only what the runner names as its
     * own fault counts as the machine's.
     */
    public static FailureKind classify(AttemptOutcome outcome, FailureCode code) {
        if (outcome == AttemptOutcome.LOST) return RUNNER_LOST;
        return code != null && MACHINE_FAULTS.contains(code) ? INFRASTRUCTURE : FAILURE;
    }
}
