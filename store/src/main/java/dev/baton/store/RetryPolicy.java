package dev.baton.store;

import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Opt-in retries of a job that started and then failed (brief §1; OJS field names). The default
 * is one attempt: a failed benchmark is signal. Requeues of jobs that never started are separate
 * and never count here.
 *
 * <p>{@code on} names the kinds of failure that are retried (issue 41) and {@code finalExitCodes}
 * the exit codes that never are. The form before it, {@code retry_when_runner_lost}, maps onto
 * {@code on} as {@link #legacyOn(boolean)} says: a job failure and an infrastructure failure were
 * both reported as failures and retried, a lost runner only when asked.
 */
public record RetryPolicy(int maxAttempts, int backoffSeconds, Set<FailureKind> on, Set<Integer> finalExitCodes) {
    public static final RetryPolicy NONE = new RetryPolicy(1, 0, false);

    public RetryPolicy {
        on = on == null || on.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(on));
        finalExitCodes = finalExitCodes == null ? Set.of() : Collections.unmodifiableSet(new TreeSet<>(finalExitCodes));
    }

    /** The policy of the older form: {@code retry_when_runner_lost} mapped onto {@code on}. */
    public RetryPolicy(int maxAttempts, int backoffSeconds, boolean retryWhenRunnerLost) {
        this(maxAttempts, backoffSeconds, legacyOn(retryWhenRunnerLost), Set.of());
    }

    /** What {@code retry_when_runner_lost} meant: failures of the job and of the machine, and lost runners when true. */
    public static Set<FailureKind> legacyOn(boolean retryWhenRunnerLost) {
        return retryWhenRunnerLost
                ? EnumSet.allOf(FailureKind.class)
                : EnumSet.of(FailureKind.INFRASTRUCTURE, FailureKind.FAILURE);
    }

    public boolean retryWhenRunnerLost() {
        return on.contains(FailureKind.RUNNER_LOST);
    }

    /**
     * Null when attempt number {@code attempt}, failed as {@code kind} with {@code exitCode} (null:
     * none), is retried; else why not. The policy's own reasons come first: a final exit code or
     * a kind it does not retry says more than a spent budget.
     */
    public NotRetried refuses(FailureKind kind, Integer exitCode, int attempt) {
        Objects.requireNonNull(kind, "kind");
        if (exitCode != null && kind == FailureKind.FAILURE && finalExitCodes.contains(exitCode))
            return NotRetried.FINAL_EXIT_CODE;
        if (!on.contains(kind)) return NotRetried.NOT_IN_RETRY_ON;
        if (attempt >= maxAttempts) return NotRetried.ATTEMPTS_EXHAUSTED;
        return null;
    }

    /** {@code on} as stored: wire names joined by commas, in a stable order. */
    String onColumn() {
        Set<String> names = new LinkedHashSet<>();
        for (FailureKind k : on) names.add(k.wireName());
        return String.join(",", names);
    }

    /** {@code finalExitCodes} as stored: ascending, joined by commas; null for none. */
    String finalExitCodesColumn() {
        if (finalExitCodes.isEmpty()) return null;
        return String.join(",", finalExitCodes.stream().map(String::valueOf).toList());
    }

    /** The policy of a stored job; a null {@code on} column is a job from before issue 41 (the legacy mapping). */
    static RetryPolicy fromColumns(
            int maxAttempts, int backoffSeconds, boolean retryWhenRunnerLost, String onColumn, String finalCodes) {
        Set<FailureKind> on = onColumn == null ? legacyOn(retryWhenRunnerLost) : EnumSet.noneOf(FailureKind.class);
        if (onColumn != null) {
            for (String name : onColumn.split(",")) {
                FailureKind k = FailureKind.parse(name.trim());
                if (k != null) on.add(k);
            }
        }
        Set<Integer> codes = new TreeSet<>();
        if (finalCodes != null && !finalCodes.isBlank()) {
            for (String c : finalCodes.split(",")) codes.add(Integer.parseInt(c.trim()));
        }
        return new RetryPolicy(maxAttempts, backoffSeconds, on, codes);
    }
}
