package dev.baton.dispatch.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.config.PrivateFiles;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The v2 output layout on a directory (docs/decisions/0032-output-one-file-per-attempt.md): one
 * file per attempt in a shard directory named by the job UUID's last two hex digits, so only the
 * first output of a shard makes a directory. (Per-attempt isolation and the older layouts'
 * fallbacks are in BlobStorageContract, for every backend.)
 */
class ObjectOutputStoreTest {
    @TempDir
    Path root;

    private final ProjectUuid project = ProjectUuid.random();
    private final JobOutput output = new JobOutput(List.of(new IterationResult(0, "out", "", Map.of())), null);

    @Test
    void theKeyIsTheJobsShardAndOneNamePerAttempt() {
        JobUuid job = JobUuid.parse("0190f3c2-7a4e-7b1d-9c3e-5d2a1f8e40ab");
        assertThat(ObjectOutputStore.key(project, job, 3)).isEqualTo(project + "/output/v2/ab/" + job + ".3");
        assertThatThrownBy(() -> ObjectOutputStore.key(project, job, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectOutputStore.v1Key(project, job, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSecondJobOfTheSameShardMakesNoDirectory() throws Exception {
        DirectoryOutputStore outputs = new DirectoryOutputStore(root);
        JobUuid first = inShard(0x5e);
        JobUuid second = inShard(0x5e);

        outputs.put(project, first, 1, output);
        Path shard = root.resolve(project.toString()).resolve("output/v2/5e");
        assertThat(shard.resolve(first + ".1")).isRegularFile();
        assertThat(Files.getPosixFilePermissions(shard)).isEqualTo(PrivateFiles.DIRECTORY);
        Set<Path> before = directories();

        outputs.put(project, second, 1, output);
        outputs.put(project, second, 2, output);
        assertThat(directories()).as("the shard directory existed; nothing new").isEqualTo(before);
        try (Stream<Path> files = Files.list(shard)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(first + ".1", second + ".1", second + ".2");
        }
        assertThat(outputs.get(project, second, 2)).contains(output);
    }

    /** A job UUID (version 4, as {@link UUID#randomUUID()}) whose last byte is {@code shard}. */
    private static JobUuid inShard(int shard) {
        UUID random = UUID.randomUUID();
        return new JobUuid(
                new UUID(random.getMostSignificantBits(), (random.getLeastSignificantBits() & ~0xFFL) | shard));
    }

    private Set<Path> directories() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isDirectory).collect(Collectors.toSet());
        }
    }
}
