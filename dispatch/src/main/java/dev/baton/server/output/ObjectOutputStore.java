package dev.baton.server.output;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobOutput;
import dev.baton.server.blob.NamedObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Output as JSON objects {@code <project>/output/v1/jobs/<job>/attempts/<attempt>} in the blob
 * storage (a directory or a bucket); each is written whole and atomically, so a reader never sees
 * half an output. Output stored before it was kept per attempt is at the job's one key,
 * {@code <project>/output/v0/jobs/<job>}: read when the attempt has none, never written (a read
 * fallback, not a migration; docs/decisions/0027-output-per-attempt.md). The new layout has its
 * own prefix because in a directory {@code v0/jobs/<job>} is a file and could not also be a
 * directory of attempts. Ids are typed UUIDs and the attempt a number, so keys cannot escape the
 * storage root.
 */
public final class ObjectOutputStore implements OutputStore {
    private final NamedObjects objects;

    public ObjectOutputStore(NamedObjects objects) {
        this.objects = objects;
    }

    @Override
    public void put(ProjectUuid project, JobUuid job, int attempt, JobOutput output) {
        try {
            objects.write(key(project, job, attempt), Wire.mapper().writeValueAsBytes(output));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store output of job " + job + " attempt " + attempt, e);
        }
    }

    @Override
    public Optional<JobOutput> get(ProjectUuid project, JobUuid job, int attempt) {
        try {
            // Attempt 0: the job was never claimed, so only an old output can exist (a direct run's).
            Optional<byte[]> content = attempt < 1 ? Optional.empty() : objects.read(key(project, job, attempt));
            if (content.isEmpty()) content = objects.read(legacyKey(project, job));
            return content.isEmpty() ? Optional.empty() : Optional.of(Wire.mapper().readValue(content.get(), JobOutput.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read output of job " + job + " attempt " + attempt, e);
        }
    }

    @Override
    public void remove(ProjectUuid project, JobUuid job, int attempt) {
        try {
            objects.delete(key(project, job, attempt));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove output of job " + job + " attempt " + attempt, e);
        }
    }

    /** Where an attempt's output lives. */
    public static String key(ProjectUuid project, JobUuid job, int attempt) {
        if (attempt < 1) throw new IllegalArgumentException("attempt " + attempt);
        return project + "/output/v1/jobs/" + job + "/attempts/" + attempt;
    }

    /** Where a job's one output lived before outputs were kept per attempt (read only). */
    public static String legacyKey(ProjectUuid project, JobUuid job) {
        return project + "/output/v0/jobs/" + job;
    }
}
