package dev.baton.server.output;

import dev.baton.server.config.PrivateFiles;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * Output as JSON files under a storage root, written to a temporary file and moved into place
 * so a reader never sees half an output. Ids are typed UUIDs, so paths cannot escape the root.
 */
public final class DirectoryOutputStore implements OutputStore {
    private final Path root;

    public DirectoryOutputStore(Path root) {
        this.root = root;
    }

    @Override
    public void put(ProjectUuid project, JobUuid job, JobOutput output) {
        Path target = path(project, job);
        try {
            PrivateFiles.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(target.getParent(), ".output-", ".tmp");
            Files.write(tmp, Wire.mapper().writeValueAsBytes(output));
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot store output of job " + job, e);
        }
    }

    @Override
    public Optional<JobOutput> get(ProjectUuid project, JobUuid job) {
        Path file = path(project, job);
        if (!Files.exists(file)) return Optional.empty();
        try {
            return Optional.of(Wire.mapper().readValue(file.toFile(), JobOutput.class));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read output of job " + job, e);
        }
    }

    private Path path(ProjectUuid project, JobUuid job) {
        return root.resolve(project.toString()).resolve("output").resolve("v0").resolve("jobs").resolve(job.toString());
    }
}
