package dev.baton.store;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A push's unique policy, resolved: another job with the same {@code key} conflicts when it is in
 * one of {@code states} and was created at or after {@code since} (null: any time).
 *
 * @param replace null to refuse on a conflict; else how the conflicting job is cancelled (the
 *                store writes the result by compare-and-set, in the transaction that inserts the
 *                new job)
 */
public record OjsUnique(String key, Collection<String> states, Instant since, UnaryOperator<OjsRow> replace) {
    public OjsUnique {
        states = List.copyOf(states);
    }
}
