package dev.baton.dispatch;

import dev.baton.store.CreatedRun;
import dev.baton.store.Job;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Runs;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * What the management API tells dispatch, so that work moves at once instead of on a poll:
 * a new pending job wakes a waiting runner; a canceled in-flight job is pushed a {@code cancel}.
 */
public interface JobEvents {
    /** A pending job was created (or returned to the queue). */
    void jobSubmitted(Job job);

    /**
     * Stores a runner run (its report and pending job) and tells dispatch: {@code afterCommit}
     * runs once the run is committed, before any runner is sent the job. Dispatch may claim the
     * job in the same commit when a runner of its spec waits (decision 0063); otherwise, and here
     * by default, the job is committed pending and {@link #jobSubmitted} is told. A failure to tell
     * dispatch is logged, not thrown: the job is committed, and dispatch finds it when a runner next asks.
     */
    default CreatedRun submit(
            Runs runs,
            NewReport report,
            NewJob job,
            long organizationId,
            Instant now,
            Consumer<CreatedRun> afterCommit) {
        CreatedRun created = runs.createRun(report, job, organizationId, now);
        afterCommit.accept(created);
        try {
            jobSubmitted(created.job());
        } catch (RuntimeException e) {
            org.slf4j.LoggerFactory.getLogger(JobEvents.class)
                    .warn("dispatch was not told about job {}", created.job().uuid(), e);
        }
        return created;
    }

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
