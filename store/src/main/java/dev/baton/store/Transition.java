package dev.baton.store;

/**
 * What a compare-and-set transition did. On zero rows updated the store re-reads the job and
 * classifies: the caller answers {@code ack}, {@code stale} or an error from this, never guesses.
 */
public record Transition(Result result, Job job) {

    public enum Result {
        /** The row changed as asked. */
        APPLIED,
        /** The job is already where this message would put it, under the same lease (a resend). */
        DUPLICATE,
        /** The lease is not the job's current lease; nothing changed. */
        STALE,
        /** The job's status does not allow this transition; nothing changed. */
        CONFLICT,
        NOT_FOUND
    }

    public boolean applied() {
        return result == Result.APPLIED;
    }
}
