package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.PairedConfig;
import java.util.Optional;

/**
 * The decline for a paired job whose baseline has an image of its own (issue 45) offered to an
 * executor that runs no second image ({@link Executor#runsBaselineImage()}). One check, made by
 * whoever hands jobs to the executor (the agent on the runner channel, the lease runner on
 * transport A) before {@link Executor#prepare}: nothing is pulled or started for such a job. It
 * is {@code image_refused}, a fault of the job for this runner, so it goes to another runner of
 * the spec and does not count towards quarantine.
 */
public final class BaselineImageRefusal {
    private BaselineImageRefusal() {}

    /** The decline, or empty when the executor can run the job as far as the baseline image goes. */
    public static Optional<DeclinedException> check(Executor executor, ClaimedJob job) {
        PairedConfig paired = job.config() == null ? null : job.config().paired();
        if (paired == null || paired.baselineImage() == null || executor.runsBaselineImage()) return Optional.empty();
        return Optional.of(new DeclinedException(
                DeclineCode.IMAGE_REFUSED,
                "the " + executor.name() + " executor runs no second image, and this paired job's baseline is image "
                        + paired.baselineImage() + ": only runc and microvm runners run a baseline image"));
    }
}
