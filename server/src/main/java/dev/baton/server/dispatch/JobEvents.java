package dev.baton.server.dispatch;

import dev.baton.server.store.Job;

/**
 * What the management API tells dispatch, so that work moves at once instead of on a poll:
 * a new pending job wakes a waiting runner; a canceled in-flight job is pushed a {@code cancel}.
 */
public interface JobEvents {
    /** A pending job was created (or returned to the queue). */
    void jobSubmitted(Job job);

    /** A user canceled the job; {@code before} is the job as it was (its runner and lease). */
    void jobCanceled(Job before, Job after);

    JobEvents NONE = new JobEvents() {
        @Override
        public void jobSubmitted(Job job) {}

        @Override
        public void jobCanceled(Job before, Job after) {}
    };
}
