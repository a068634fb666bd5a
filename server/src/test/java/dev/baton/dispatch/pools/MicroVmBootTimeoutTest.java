package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.store.Job;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;
import dev.baton.store.PoolSettings;
import dev.baton.store.Spec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scaler's boot timeout with the {@code microvm} provider (issue 43): a real QEMU guest whose
 * runner never registers (a stand-in that sleeps) is stopped by the scaler once the server's
 * clock passes {@code boot_timeout}, ends {@code failed} and counts; the QEMU process is gone.
 * The clock is the test's, so no test waits for a timeout.
 */
@Tag("microvm")
class MicroVmBootTimeoutTest {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    Job job;
    Path base;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/bin/busybox"))
                        && MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"))
                                .isPresent(),
                "microVM boot timeout test skipped: no guest kernel or static busybox");
        server = new ChannelFixture(null, dataDir);
        spec = server.spec("vm");
        job = server.submit(spec);
        base = Path.of("target", "microvm-boot-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(base);
    }

    @AfterEach
    void stop() {
        if (server != null) server.close();
    }

    private final PoolScaler.Observer neverRegisters = new PoolScaler.Observer() {
        @Override
        public MachineView observe(PoolMachine machine) {
            return new MachineView(machine, RunnerPhase.NOT_CONNECTED, machine.jobId());
        }

        @Override
        public List<Long> waitingJobs(Pool pool, java.time.Instant now) {
            boolean covered = server.store.pools().liveMachines(pool.id()).stream()
                    .anyMatch(m -> job.id() == (m.jobId() == null ? -1 : m.jobId()));
            return covered ? List.of() : List.of(job.id());
        }
    };

    @Test
    void aGuestWhoseRunnerNeverRegistersIsStoppedAtItsBootTimeout() throws Exception {
        Path sleeper = base.resolve("baton");
        assumeFalse(
                MicroVmProvider.hiddenInTheGuest(sleeper),
                "the build is under " + base + ", which the guest does not see (it gets a fresh /tmp)");
        Files.writeString(sleeper, "#!/bin/sh\nexec sleep 3600\n");
        Files.setPosixFilePermissions(sleeper, PosixFilePermissions.fromString("rwx------"));
        MicroVmProvider microvm = new MicroVmProvider();
        String config = "{\"root\": \"/\", \"memory_mib\": \"256\", \"work_dir\": \"" + base.resolve("machines")
                + "\", \"command\": \"" + sleeper + "\"}";
        Pool pool = server.store
                .pools()
                .createPool(
                        "vm",
                        new PoolSettings(
                                spec.id(),
                                Map.of(),
                                0,
                                1,
                                Duration.ofSeconds(60),
                                Duration.ofMinutes(10),
                                "microvm",
                                config),
                        server.clock.instant());
        PoolScaler scaler = new PoolScaler(
                server.store, Map.of("microvm", microvm), neverRegisters, server.clock, "a", "http://127.0.0.1:1");
        scaler.runOnce();
        PoolMachine first = server.store.pools().liveMachines(pool.id()).getFirst();
        assertThat(first.providerId()).as("the scaler recorded QEMU's id").matches("\\d+@\\d+(@[0-9a-f]{12}\\.\\d+)?");
        ProcessHandle qemu = ProcessProvider.find(first.providerId()).orElseThrow();
        List<String> started = List.of(first.providerId());
        try {
            server.advance(Duration.ofMinutes(9));
            scaler.runOnce();
            assertThat(qemu.isAlive()).isTrue();
            server.advance(Duration.ofMinutes(1));
            scaler.runOnce();

            assertThat(qemu.isAlive()).isFalse();
            PoolMachine ended = server.store.pools().machines(pool.id(), 10).stream()
                    .filter(m -> m.id() == first.id())
                    .findFirst()
                    .orElseThrow();
            assertThat(ended.state()).isEqualTo(PoolMachineState.FAILED);
            assertThat(ended.reason()).contains("boot_timeout");
            assertThat(server.store.pools().findPool("vm").orElseThrow().failedStarts())
                    .isEqualTo(1);
        } finally {
            // The job still waits, so the same pass started it a new machine: stop every one.
            for (PoolMachine m : server.store.pools().liveMachines(pool.id()))
                if (m.providerId() != null) microvm.stop(m.providerId(), Map.of());
            for (String id : started) microvm.stop(id, Map.of());
        }
    }
}
