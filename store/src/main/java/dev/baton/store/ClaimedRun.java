package dev.baton.store;

import java.util.List;

/**
 * A runner run stored with a claim in the same commit ({@link Runs#createRunAndClaim}, decision
 * 0063): the report, its job as inserted (pending), and the jobs the claim took for the waiting
 * runner, in claim order (usually the new job alone; possibly an older one, or none).
 */
public record ClaimedRun(Report report, Job job, List<Job> claimed) {
    public ClaimedRun {
        claimed = List.copyOf(claimed);
    }

    /** The run as {@link Runs#createRun} returns it. */
    public CreatedRun created() {
        return new CreatedRun(report, job);
    }

    /** Whether the claim took the new job itself (it is then not pending). */
    public boolean claimedItsJob() {
        return claimed.stream().anyMatch(j -> j.id() == job.id());
    }
}
