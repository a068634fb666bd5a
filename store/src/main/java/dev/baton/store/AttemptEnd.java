package dev.baton.store;

/**
 * How a started attempt that failed was judged (issue 41): its {@code kind} (a {@link FailureKind}),
 * the failing iteration's {@code exitCode} (null: none) and whether it was retried ({@code
 * notRetried} null) or why not. Attempts that ended otherwise (completed, canceled, declined, …)
 * have none.
 */
public record AttemptEnd(FailureKind kind, Integer exitCode, boolean retried, NotRetried notRetried) {}
