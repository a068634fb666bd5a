package dev.baton.server.dispatch;

import dev.baton.server.store.Job;

/** What a job-scoped message's (job, lease) names, from this runner's point of view. */
sealed interface Resolution {
    /** The current attempt, held by this runner, known in memory. */
    record Current(ActiveJob attempt) implements Resolution {}

    /** The current lease, held by this runner, but the job is no longer in flight (finished, or finished by timeout). */
    record Finished(Job job) implements Resolution {}

    /** An earlier attempt of this runner: the lease is no longer valid. */
    record Stale(String reason) implements Resolution {}

    /** The job is not leased to this runner (another runner's job, or a lease it never held). */
    record Forbidden() implements Resolution {}

    record Unknown() implements Resolution {}
}
