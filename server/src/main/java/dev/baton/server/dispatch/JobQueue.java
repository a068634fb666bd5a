package dev.baton.server.dispatch;

import dev.baton.server.store.Job;
import java.util.Optional;

/** What the management API asks dispatch about the queue: a pending job's status (empty for any other job). */
public interface JobQueue {
    Optional<QueueStatus> status(Job job);

    /** For servers without dispatch (API tests): nothing is known about the queue. */
    JobQueue UNKNOWN = job -> Optional.empty();
}
