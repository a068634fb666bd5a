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
 * Output as JSON objects {@code <project>/output/v0/jobs/<job>} in the blob storage (a directory
 * or a bucket); each is written whole and atomically, so a reader never sees half an output.
 * Ids are typed UUIDs, so keys cannot escape the storage root.
 */
public final class ObjectOutputStore implements OutputStore {
    private final NamedObjects objects;

    public ObjectOutputStore(NamedObjects objects) {
        this.objects = objects;
    }

    @Override
    public void put(ProjectUuid project, JobUuid job, JobOutput output) {
        try {
            objects.write(key(project, job), Wire.mapper().writeValueAsBytes(output));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store output of job " + job, e);
        }
    }

    @Override
    public Optional<JobOutput> get(ProjectUuid project, JobUuid job) {
        try {
            Optional<byte[]> content = objects.read(key(project, job));
            return content.isEmpty() ? Optional.empty() : Optional.of(Wire.mapper().readValue(content.get(), JobOutput.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read output of job " + job, e);
        }
    }

    @Override
    public void remove(ProjectUuid project, JobUuid job) {
        try {
            objects.delete(key(project, job));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove output of job " + job, e);
        }
    }

    private static String key(ProjectUuid project, JobUuid job) {
        return project + "/output/v0/jobs/" + job;
    }
}
