package dev.baton.dispatch;

import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.Spec;
import java.util.Optional;

/** What the management API asks dispatch about the queue: a pending job's status (empty for any other job). */
public interface JobQueue {
    Optional<QueueStatus> status(Job job);

    /**
     * The same, for a caller that already holds the job's spec and labels (the submission that
     * just stored the job): they are not read again. Either may be null, and is then read.
     */
    default Optional<QueueStatus> status(Job job, Spec spec, JobLabels labels) {
        return status(job);
    }

    /** For servers without dispatch (API tests): nothing is known about the queue. */
    JobQueue UNKNOWN = job -> Optional.empty();
}
