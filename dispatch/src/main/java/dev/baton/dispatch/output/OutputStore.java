package dev.baton.dispatch.output;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.JobOutput;
import java.util.Optional;

/**
 * Job output in the blob storage, one object per attempt (docs/protocol.md, "Output"): what an
 * attempt's final word carries is stored under that attempt's number, so a late word of an
 * earlier attempt can never write over, or take back, the output of the attempt the job accepted.
 * Readers ask for the job's current attempt ({@code Job.attempt()}).
 */
public interface OutputStore {
    void put(ProjectUuid project, JobUuid job, int attempt, JobOutput output);

    /**
     * The output of {@code attempt}; for output stored before outputs were kept per attempt, the
     * job's one output (the read fallback for old keys).
     */
    Optional<JobOutput> get(ProjectUuid project, JobUuid job, int attempt);

    /** Removes the attempt's output, if any (its final word stored it and was then refused). */
    void remove(ProjectUuid project, JobUuid job, int attempt);

    /**
     * The encoded {@code output} when this store keeps it on the attempt's row, to be written by
     * the transition that ends the attempt ({@code Store.complete} and {@code Store.fail}); null
     * when it must be {@link #put} before that transition. Only {@link AttemptOutputs} keeps any.
     */
    default byte[] onTheAttempt(JobOutput output) {
        return null;
    }
}
