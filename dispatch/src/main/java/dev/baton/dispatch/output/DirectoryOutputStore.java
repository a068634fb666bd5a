package dev.baton.dispatch.output;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.blob.FileObjects;
import java.nio.file.Path;
import java.util.Optional;

/** Output as JSON files under a storage root ({@link ObjectOutputStore} over {@link FileObjects}). */
public final class DirectoryOutputStore implements OutputStore {
    private final ObjectOutputStore files;

    public DirectoryOutputStore(Path root) {
        this.files = new ObjectOutputStore(new FileObjects(root));
    }

    @Override
    public void put(ProjectUuid project, JobUuid job, int attempt, JobOutput output) {
        files.put(project, job, attempt, output);
    }

    @Override
    public Optional<JobOutput> get(ProjectUuid project, JobUuid job, int attempt) {
        return files.get(project, job, attempt);
    }

    @Override
    public void remove(ProjectUuid project, JobUuid job, int attempt) {
        files.remove(project, job, attempt);
    }
}
