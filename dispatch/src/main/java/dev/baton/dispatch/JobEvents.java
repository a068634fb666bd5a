package dev.baton.dispatch;

import dev.baton.store.Job;

/**
 * What the management API tells dispatch, so that work moves at once instead of on a poll:
 * a new pending job wakes a waiting runner; a canceled in-flight job is pushed a {@code cancel}.
 */
public interface JobEvents {
    /** A pending job was created (or returned to the queue). */
    void jobSubmitted(Job job);

    /** A user canceled the job; {@code before} is the job as it was (its runner and lease). */
    void jobCanceled(Job before, Job after);

    /**
     * When a runner told now to cancel its job must have answered: written with the cancel
     * (the job's cancel_deadline). Dispatch answers with the configured cancel_deadline.
     */
    default java.time.Instant cancelDeadline(java.time.Instant now) {
        return now.plus(dev.baton.store.Store.DEFAULT_CANCEL_DEADLINE);
    }

    JobEvents NONE = new JobEvents() {
        @Override
        public void jobSubmitted(Job job) {}

        @Override
        public void jobCanceled(Job before, Job after) {}
    };
}
