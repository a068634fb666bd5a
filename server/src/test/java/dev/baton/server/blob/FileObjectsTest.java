package dev.baton.server.blob;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.server.config.PrivateFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Named objects as files on a real directory: private modes, whole objects, nothing left behind. */
class FileObjectsTest {
    @TempDir
    Path root;

    @Test
    void aWriteCreatesPrivateDirectoriesAndAPrivateFileAndLeavesNoTemporaryFile() throws Exception {
        FileObjects objects = new FileObjects(root);
        objects.write("p/output/v1/jobs/j/attempts/1", bytes("first"));
        objects.write("p/output/v1/jobs/j/attempts/1", bytes("second"));
        assertThat(objects.read("p/output/v1/jobs/j/attempts/1")).hasValueSatisfying(b -> assertThat(text(b)).isEqualTo("second"));
        for (Path dir : List.of(root.resolve("p"), root.resolve("p/output/v1/jobs/j"), root.resolve("p/output/v1/jobs/j/attempts"))) {
            assertThat(Files.getPosixFilePermissions(dir)).isEqualTo(PrivateFiles.DIRECTORY);
        }
        assertThat(Files.getPosixFilePermissions(root.resolve("p/output/v1/jobs/j/attempts/1"))).isEqualTo(PrivateFiles.FILE);
        try (Stream<Path> all = Files.walk(root)) {
            assertThat(all.map(p -> p.getFileName().toString())).noneMatch(name -> name.startsWith(".tmp-"));
        }
    }

    /** Writers racing to create the same new directories (several jobs' outputs at once) all succeed. */
    @Test
    void concurrentWritesIntoTheSameNewDirectoriesAllLand() throws Exception {
        FileObjects objects = new FileObjects(root);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> writes = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                int n = i;
                writes.add(pool.submit(() -> {
                    go.await();
                    objects.write("q/output/v1/jobs/same/attempts/" + n, bytes("attempt " + n));
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> w : writes) w.get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(objects.list("q/output/v1/jobs/same/attempts")).hasSize(8);
        assertThat(objects.read("q/output/v1/jobs/same/attempts/5")).hasValueSatisfying(b -> assertThat(text(b)).isEqualTo("attempt 5"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
