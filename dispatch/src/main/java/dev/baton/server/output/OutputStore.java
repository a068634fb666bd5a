package dev.baton.server.output;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.JobOutput;
import java.util.Optional;

/** Job output at {project}/output/v0/jobs/{job} in the blob storage (seed 000). */
public interface OutputStore {
    void put(ProjectUuid project, JobUuid job, JobOutput output);

    Optional<JobOutput> get(ProjectUuid project, JobUuid job);

    /** Removes the job's output, if any (a completion stored it and was then refused). */
    void remove(ProjectUuid project, JobUuid job);
}
