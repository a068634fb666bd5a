package dev.baton.dispatch;

import dev.baton.store.Job;

/** What a job-scoped message's (job, lease) names, from this runner's point of view. */
sealed interface Resolution {
    /** The current attempt, held by this runner, known in memory. */
    record Current(ActiveJob attempt) implements Resolution {}

    /** The current lease, held by this runner, but the job is no longer in flight (finished, or finished by timeout). */
    record Finished(Job job) implements Resolution {}

    /** Not the current lease (an earlier attempt, a lease never issued, or no such job): changes nothing. */
    record Stale(String reason) implements Resolution {}

    /** The current lease, but presented by another runner than the one holding it. */
    record Forbidden() implements Resolution {}
}
