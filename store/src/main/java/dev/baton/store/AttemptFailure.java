package dev.baton.store;

import dev.baton.protocol.message.FailureCode;

/**
 * What the runner said about a failed attempt beyond its error text (issue 41): its failure
 * {@code code} (null: none given) and the {@code exitCode} of the iteration that failed (null:
 * none, e.g. a timeout or a lost runner). The store classifies and decides the retry from these.
 */
public record AttemptFailure(FailureCode code, Integer exitCode) {
    public static final AttemptFailure UNKNOWN = new AttemptFailure(null, null);
}
