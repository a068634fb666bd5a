package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.core.microvm.MicroVmKernels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@code microvm} provider (issue 43) booting real QEMU guests (TCG here: no KVM). The guest's
 * runner is a stand-in script that records what it was given and never registers, which is what
 * the scaler's boot timeout meets: the machine runs until {@code stop} kills it. The whole loop
 * with the real runner and a job is {@code MicroVmPoolRunnerTest} in the CLI module. The scripts
 * live under {@code target/}, not {@code /tmp}: the guest has its own {@code /tmp}.
 */
@Tag("microvm")
class MicroVmProviderTest {
    private final MicroVmProvider provider = new MicroVmProvider();
    private Path base;
    private String started;

    @BeforeEach
    void setUp() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/bin/busybox"))
                        && MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"))
                                .isPresent(),
                "microVM provider tests skipped: no guest kernel or static busybox");
        base = Path.of("target", "microvm-provider-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(base);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (started != null) provider.stop(started, Map.of());
    }

    private PoolProvider.StartRequest request(String machine, Map<String, String> config) {
        return new PoolProvider.StartRequest(
                "http://127.0.0.1:7700",
                "pool-vm-1",
                "baton_runner_" + "d".repeat(64),
                Map.of("pool", "vm"),
                machine,
                "vm",
                config);
    }

    @Test
    void theGuestRunsTheRunnerWithItsKeyFromAFileItDeletesAndStopKillsTheMachine() throws Exception {
        Path baton = base.resolve("baton");
        assumeFalse(
                MicroVmProvider.hiddenInTheGuest(baton),
                "the build is under " + base + ", which the guest does not see (it gets a fresh /tmp)");
        Files.writeString(baton, """
                #!/bin/sh
                {
                  echo "args: $*"
                  echo "server: $BATON_SERVER"
                  echo "key: $BATON_RUNNER_KEY"
                  echo "cmdline: $(cat /proc/cmdline)"
                  ls "$HOME"
                } > "$HOME/seen.tmp" && mv "$HOME/seen.tmp" "$HOME/seen"
                exec sleep 3600
                """);
        Files.setPosixFilePermissions(baton, PosixFilePermissions.fromString("rwx------"));
        Map<String, String> config = new HashMap<>(Map.of(
                "root",
                "/",
                "work_dir",
                base.resolve("machines").toString(),
                "command",
                baton.toString(),
                "args",
                "--executor process --allow-no-sandbox",
                "memory_mib",
                "256"));
        started = provider.start(request("m1", config));
        assertThat(started).matches("\\d+@\\d+(@[0-9a-f]{12}\\.\\d+)?");
        ProcessHandle qemu = ProcessProvider.find(started).orElseThrow();
        assertThat(qemu.info().arguments().map(a -> String.join(" ", a)).orElse(""))
                .contains("microvm")
                .doesNotContain("baton_runner_");

        Path dir = base.resolve("machines/m1");
        Path seen = dir.resolve("seen");
        // A TCG boot takes 10-60 s on this loaded 2-core machine; the bound is generous.
        await().atMost(Duration.ofMinutes(8))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Files.exists(seen) || !qemu.isAlive());
        assertThat(Files.exists(seen))
                .as(
                        "the guest ran the runner; console: %s; agent.log: %s",
                        read(dir, "console.log"), read(dir, "agent.log"))
                .isTrue();
        String said = Files.readString(seen);
        assertThat(said)
                .contains("args: runner up --ephemeral --runner pool-vm-1 --work-dir " + dir.resolve("work")
                        + " --executor process --allow-no-sandbox --label pool=vm")
                .contains("server: http://10.0.2.2:7700")
                .contains("key: baton_runner_" + "d".repeat(64))
                .contains("baton.dir=" + dir) // it ran in the guest, not on the host
                .doesNotContain("key.env"); // read, then deleted
        assertThat(dir.resolve("key.env")).doesNotExist();

        provider.stop(started, config);
        assertThat(qemu.isAlive()).isFalse();
        assertThat(ProcessProvider.find(started)).isEmpty();
        provider.stop(started, config); // gone already: still a success
        started = null;
    }

    @Test
    void aGuestQemuCannotStartFailsTheStartWithQemusReasonAndBadSettingsAreRefused() throws Exception {
        // Named like the real kernel (so its modules are found) but 4 KiB of noise: QEMU refuses it.
        Path real =
                MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules")).orElseThrow();
        Path junk = Files.createDirectories(base.resolve("boot")).resolve(real.getFileName());
        Files.write(
                junk,
                new java.util.Random(7)
                        .ints(4096, 0, 256)
                        .collect(java.io.ByteArrayOutputStream::new, (o, b) -> o.write(b), (a, b) -> {})
                        .toByteArray());
        Map<String, String> notAKernel = Map.of(
                "root", "/",
                "work_dir", base.resolve("machines").toString(),
                "kernel", junk.toString());
        assertThatThrownBy(() -> provider.start(request("m2", notAKernel)))
                .isInstanceOf(PoolProvider.ProviderException.class)
                .hasMessageStartingWith("QEMU exited at once with 1: ")
                .hasMessageContaining("linux kernel too old")
                .hasMessageNotContaining("baton_runner_");
        assertThat(base.resolve("machines/m2/key.env")).doesNotExist();

        assertThatThrownBy(() -> provider.start(request("m3", Map.of("root", "/", "command", "/tmp/baton"))))
                .hasMessage("provider_config command /tmp/baton is not visible in the guest: it gets fresh /tmp, /run,"
                        + " /dev, /proc and /sys");
        assertThatThrownBy(() -> provider.start(request("m3", Map.of("accel", "hvf"))))
                .hasMessage("provider_config accel must be tcg or kvm, got 'hvf'");
        assertThatThrownBy(() -> provider.start(request("m3", Map.of("memory_mib", "12"))))
                .hasMessage("provider_config memory_mib must be 256-1048576, got '12'");
        assertThatThrownBy(() -> provider.start(request("m3", Map.of("root", "/", "kernel", "/nonexistent/vmlinuz"))))
                .hasMessage("no guest kernel at /nonexistent/vmlinuz");
        assertThatThrownBy(() -> provider.start(request("m3", Map.of())))
                .hasMessageStartingWith("provider_config has no 'root'");
        assertThatThrownBy(() -> provider.start(request("m3", Map.of("root", "relative/dir"))))
                .hasMessage("provider_config root must be an absolute directory, got 'relative/dir'");
    }

    @Test
    void theGuestReachesALoopbackServerThroughTheUserModeNetworksHostAddress() {
        assertThat(MicroVmProvider.guestServer("http://127.0.0.1:7700", Map.of()))
                .isEqualTo("http://10.0.2.2:7700");
        assertThat(MicroVmProvider.guestServer("http://localhost:7700/baton", Map.of()))
                .isEqualTo("http://10.0.2.2:7700/baton");
        assertThat(MicroVmProvider.guestServer("https://baton.example.com", Map.of()))
                .isEqualTo("https://baton.example.com");
        assertThat(MicroVmProvider.guestServer("http://127.0.0.1:7700", Map.of("guest_server", "http://10.0.0.5:80")))
                .isEqualTo("http://10.0.0.5:80");
    }

    private static String read(Path dir, String file) {
        try {
            return Optional.of(dir.resolve(file))
                    .filter(Files::exists)
                    .map(p -> {
                        try {
                            return Files.readString(p);
                        } catch (java.io.IOException e) {
                            return e.toString();
                        }
                    })
                    .orElse("(none)");
        } catch (RuntimeException e) {
            return e.toString();
        }
    }
}
