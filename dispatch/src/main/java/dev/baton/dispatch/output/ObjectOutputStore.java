package dev.baton.dispatch.output;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.blob.NamedObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Output as JSON objects {@code <project>/output/v2/<shard>/<job>.<attempt>} in the blob storage
 * (a directory or a bucket), {@code <shard>} being the job UUID's last two hex digits; each is
 * written whole and atomically, so a reader never sees half an output. The flat, sharded layout
 * gives a project at most 256 directories, each created once, where the per-attempt layout
 * before it made two per job (docs/decisions/0032-output-one-file-per-attempt.md).
 *
 * <p>Older layouts are read, newest first, when an attempt has no v2 object, and never written:
 * the per-attempt {@code <project>/output/v1/jobs/<job>/attempts/<attempt>}, then the job's one
 * key from before outputs were kept per attempt, {@code <project>/output/v0/jobs/<job>} (read
 * fallbacks, not migrations; docs/decisions/0027-output-per-attempt.md). Each layout has its own
 * prefix because in a directory a key that is a file cannot also be a directory of others. Ids
 * are typed UUIDs and the attempt a number, so keys cannot escape the storage root.
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
            Optional<byte[]> content = Optional.empty();
            if (attempt >= 1) {
                content = objects.read(key(project, job, attempt));
                if (content.isEmpty()) content = objects.read(v1Key(project, job, attempt));
            }
            if (content.isEmpty()) content = objects.read(legacyKey(project, job));
            return content.isEmpty()
                    ? Optional.empty()
                    : Optional.of(Wire.mapper().readValue(content.get(), JobOutput.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read output of job " + job + " attempt " + attempt, e);
        }
    }

    /**
     * Removes the attempt's output under both per-attempt layouts: an attempt a node of the older
     * version stored at v1 (a rolling upgrade) is removed as surely as one stored here.
     */
    @Override
    public void remove(ProjectUuid project, JobUuid job, int attempt) {
        try {
            objects.delete(key(project, job, attempt));
            objects.delete(v1Key(project, job, attempt));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove output of job " + job + " attempt " + attempt, e);
        }
    }

    /** Where an attempt's output is written: the v2 layout, sharded by the job UUID's last two hex digits. */
    public static String key(ProjectUuid project, JobUuid job, int attempt) {
        checkAttempt(attempt);
        String id = job.toString();
        return project + "/output/v2/" + id.substring(id.length() - 2) + "/" + id + "." + attempt;
    }

    /** Where an attempt's output lived in the v1 layout, two directories per job (read and removed, never written). */
    public static String v1Key(ProjectUuid project, JobUuid job, int attempt) {
        checkAttempt(attempt);
        return project + "/output/v1/jobs/" + job + "/attempts/" + attempt;
    }

    /** Where a job's one output lived before outputs were kept per attempt (read only). */
    public static String legacyKey(ProjectUuid project, JobUuid job) {
        return project + "/output/v0/jobs/" + job;
    }

    private static void checkAttempt(int attempt) {
        if (attempt < 1) throw new IllegalArgumentException("attempt " + attempt);
    }
}
