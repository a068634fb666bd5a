package dev.baton.runner.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.model.NoiseFigure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The calibration in a child JVM: its command, its output read back, and a real run of it. */
class NoiseProbeTest {
    @TempDir
    Path dir;

    @Test
    void theChildsLinesAreReadAsFigures() {
        assertThat(NoiseProbe.parse("cpu 200 2051234.0 0.012300000\nmemory 200 48112342.5 0.041100000\n"))
                .containsExactly(
                        new NoiseFigure("cpu", 200, 2051234.0, 0.0123),
                        new NoiseFigure("memory", 200, 48112342.5, 0.0411));
        assertThatThrownBy(() -> NoiseProbe.parse("cpu 200 oops")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pinnedToTheBenchmarkCpusWhenThereAreSome() {
        List<String> pinned = new NoiseProbe(dir, 5, Optional.of("1"), 60).command();
        if (Files.isExecutable(Path.of("/usr/bin/taskset")))
            assertThat(pinned.subList(0, 3)).containsExactly("/usr/bin/taskset", "-c", "1");
        List<String> unpinned = new NoiseProbe(dir, 5, Optional.empty(), 60).command();
        assertThat(unpinned).doesNotContain("/usr/bin/taskset");
        assertThat(unpinned.subList(unpinned.size() - 3, unpinned.size()))
                .containsExactly(NoiseMain.class.getName(), dir.toString(), "5");
    }

    @Test
    void aRealRunGivesOneFigureForEachWorkloadAndLeavesNoFileBehind() throws Exception {
        List<NoiseFigure> figures =
                new NoiseProbe(dir, 3, Optional.empty(), 300).measure().orElseThrow();
        assertThat(figures).extracting(NoiseFigure::workload).containsExactly("cpu", "memory", "file");
        assertThat(figures).allSatisfy(f -> {
            assertThat(f.repetitions()).isEqualTo(3);
            assertThat(f.meanNanos()).isPositive();
        });
        try (var left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aChildThatCannotRunGivesNoFigures() throws Exception {
        // A scratch path under a regular file: neither the probe nor its child can make it a directory.
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        assertThat(new NoiseProbe(notADirectory.resolve("x"), 3, Optional.empty(), 300).measure())
                .as("nothing guessed")
                .isEmpty();
    }
}
