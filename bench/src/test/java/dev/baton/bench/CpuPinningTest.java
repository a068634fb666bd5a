package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CpuPinningTest {
    @Test
    void kernelCpuListsAreRead() {
        assertThat(CpuPinning.parseList("0-2,5\n")).containsExactly(0, 1, 2, 5);
        assertThat(CpuPinning.parseList(" 3")).containsExactly(3);
        assertThat(CpuPinning.format(List.of(0, 1))).isEqualTo("0,1");
        assertThat(CpuPinning.command(List.of(1))).containsExactly("taskset", "-c", "1");
    }

    @Test
    void everyThreadIsPinnedAndThenReleased() throws Exception {
        assumeTrue(CpuPinning.unavailable() == null, "taskset and two CPUs: " + CpuPinning.unavailable());
        List<Integer> allowed = CpuPinning.allowedCpus();
        try {
            int threads = CpuPinning.pinProcess(allowed.subList(0, 1));
            assertThat(threads).isPositive();
            assertThat(CpuPinning.allowedCpus()).containsExactly(allowed.getFirst());
            // a thread started now inherits the set, and the JVM sees one processor
            AtomicReference<List<Integer>> seen = new AtomicReference<>();
            Thread t = Thread.ofPlatform()
                    .start(() -> seen.set(CpuPinning.allowedCpus(Path.of("/proc/thread-self/status"))));
            t.join();
            assertThat(seen.get()).containsExactly(allowed.getFirst());
            assertThat(Runtime.getRuntime().availableProcessors()).isEqualTo(1);
        } finally {
            CpuPinning.pinProcess(allowed);
        }
        assertThat(CpuPinning.allowedCpus()).isEqualTo(allowed);
    }
}
