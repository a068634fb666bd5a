package dev.baton.store.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.core.config.PrivateFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Named objects as files on a real directory: private modes, whole objects, nothing left behind. */
class FileObjectsTest {
    @TempDir
    Path root;

    /** Into a directory that is missing: made (0700, every missing level), then written. */
    @Test
    void aWriteCreatesPrivateDirectoriesAndAPrivateFileAndLeavesNoTemporaryFile() throws Exception {
        FileObjects objects = new FileObjects(root);
        objects.write("p/new/deeper/k", bytes("first"));
        objects.write("p/new/deeper/k", bytes("second"));
        assertThat(objects.read("p/new/deeper/k"))
                .hasValueSatisfying(b -> assertThat(text(b)).isEqualTo("second"));
        for (Path dir : List.of(root.resolve("p"), root.resolve("p/new"), root.resolve("p/new/deeper"))) {
            assertThat(Files.getPosixFilePermissions(dir)).as(dir.toString()).isEqualTo(PrivateFiles.DIRECTORY);
        }
        assertThat(Files.getPosixFilePermissions(root.resolve("p/new/deeper/k")))
                .isEqualTo(PrivateFiles.FILE);
        assertNoTemporaryFile();
    }

    /** Into a directory that exists (the common case): written beside what is there, the directory left as it was. */
    @Test
    void aWriteIntoAnExistingDirectoryMakesAPrivateFileAndNoDirectory() throws Exception {
        FileObjects objects = new FileObjects(root);
        objects.write("p/shard/a", bytes("a"));
        Set<Path> before = directories();
        objects.write("p/shard/b", bytes("b"));
        assertThat(directories()).as("no directory made").isEqualTo(before);
        assertThat(objects.read("p/shard/b"))
                .hasValueSatisfying(b -> assertThat(text(b)).isEqualTo("b"));
        assertThat(objects.list("p/shard")).containsExactly("a", "b");
        assertThat(Files.getPosixFilePermissions(root.resolve("p/shard/b"))).isEqualTo(PrivateFiles.FILE);
        assertThat(Files.getPosixFilePermissions(root.resolve("p/shard"))).isEqualTo(PrivateFiles.DIRECTORY);
        assertNoTemporaryFile();
    }

    /** A write that cannot be moved into place (a directory holds its name) fails and leaves no temporary file. */
    @Test
    void aFailedWriteLeavesNoTemporaryFile() throws Exception {
        FileObjects objects = new FileObjects(root);
        objects.write("p/taken/inside", bytes("x"));
        assertThatThrownBy(() -> objects.write("p/taken", bytes("y"))).isInstanceOf(IOException.class);
        assertThat(objects.read("p/taken/inside"))
                .hasValueSatisfying(b -> assertThat(text(b)).isEqualTo("x"));
        assertNoTemporaryFile();
    }

    /** Writers racing to create the same new directory (outputs of several jobs of one new shard at once) all succeed. */
    @Test
    void concurrentWritesIntoTheSameNewDirectoryAllLand() throws Exception {
        FileObjects objects = new FileObjects(root);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                writes.add(pool.submit(() -> {
                    go.await();
                    objects.write("q/output/v2/ab/job-" + n, bytes("attempt " + n));
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> w : writes) w.get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(objects.list("q/output/v2/ab")).hasSize(8);
        assertThat(objects.read("q/output/v2/ab/job-5"))
                .hasValueSatisfying(b -> assertThat(text(b)).isEqualTo("attempt 5"));
    }

    private void assertNoTemporaryFile() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(name -> name.startsWith(".tmp-"));
        }
    }

    private Set<Path> directories() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isDirectory).collect(Collectors.toSet());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
