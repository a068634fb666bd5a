package dev.baton.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.executor.MicroVmExecutor;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.QemuMicrovm;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.oci.LayoutBlobSource;
import dev.baton.runner.testing.ScriptedPeer;
import dev.baton.runner.testing.TestImages;
import dev.baton.runner.update.Updater;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent with the microVM executor (QEMU under TCG) against a scripted peer standing in for
 * the server channel: the job's timeout kills the VM and is reported as a failure with the
 * partial output. Skipped, with the reason, where QEMU or the guest pieces are missing.
 */
@Tag("microvm")
class MicroVmAgentTest {
    private static final Duration WAIT = Duration.ofSeconds(150);
    private final RunnerKey key = RunnerKey.generate();
    private final ConcurrentLinkedQueue<ClaimedJob> queue = new ConcurrentLinkedQueue<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private ScriptedPeer peer;
    private Path work;
    private TestImages.Image image;
    private MicroVmExecutor executor;

    @BeforeEach
    void setUp() throws Exception {
        Optional<Path> kernel = MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"));
        assumeTrue(
                kernel.isPresent(),
                "microVM agent tests skipped: no /boot/vmlinuz-* with modules (apt-get install linux-image-amd64)");
        Path modules = MicroVmKernels.modulesFor(kernel.get(), Path.of("/lib/modules"));
        Optional<String> unavailable =
                MicroVmExecutor.unavailableReason("qemu-system-x86_64", kernel.get(), modules, TestImages.BUSYBOX);
        assumeTrue(unavailable.isEmpty(), () -> "microVM agent tests skipped: " + unavailable.orElse(""));
        work = Files.createTempDirectory(Path.of("/tmp"), "bvma");
        image = TestImages.busybox(work.resolve("layout"), List.of("true"), List.of());
        peer = new ScriptedPeer(key.reveal(), (p, m) -> {
            if (m instanceof RunnerMessage.Ready) {
                ClaimedJob job = queue.poll();
                return job == null ? List.of() : List.of(new ServerMessage.Job(job)); // else the ready waits
            }
            return List.of(ScriptedPeer.ackFor(m));
        });
        executor = new MicroVmExecutor(
                new MicroVmExecutor.Options(
                        QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg"),
                        work.resolve("r"),
                        Architecture.X86_64,
                        kernel.get(),
                        modules,
                        TestImages.BUSYBOX,
                        OutputLimits.DEFAULT,
                        job -> new LayoutBlobSource(image.layout()),
                        Long.MAX_VALUE),
                Clock.systemUTC());
        RunnerAgent agent = new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(1),
                new RunnerAgent.Target(peer.url(), "runner-1", key),
                executor,
                new Outbox(work.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200));
        threads.submit(agent::run);
    }

    @AfterEach
    void tearDown() throws Exception {
        threads.shutdownNow();
        if (executor != null) executor.sweep();
        if (peer != null) peer.close();
        if (work != null)
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
    }

    private ClaimedJob job(ImageDigest digest, List<String> cmd, int timeout) {
        return Jobs.claimed(
                Jobs.spec(Architecture.X86_64, 1, 128 << 20, false),
                new JobConfig(
                        "local",
                        ProjectUuid.random(),
                        digest,
                        null,
                        cmd,
                        Map.of(),
                        JobTimeout.of(timeout),
                        List.of(),
                        1));
    }

    @Test
    void theJobsTimeoutKillsTheVmAndIsReportedAsFailedWithPartialOutput() throws Exception {
        // The timeout counts from the start, which includes the guest's boot (seconds under TCG).
        ClaimedJob job = job(image.digest(), List.of("sh", "-c", "echo begun; sleep 600"), 20);
        queue.add(job);
        peer.await(RunnerMessage.Running.class, WAIT);
        RunnerMessage.Failed failed = peer.await(RunnerMessage.Failed.class, WAIT);
        assertThat(failed.job()).isEqualTo(job.uuid());
        assertThat(failed.error()).contains("timed out after 20 s");
        assertThat(failed.results().getFirst().stdout()).isEqualTo("begun\n");
        String marker = work.toString();
        assertThat(ProcessHandle.allProcesses()
                        .filter(h -> String.join(" ", h.info().arguments().orElse(new String[0]))
                                .contains(marker)))
                .isEmpty();
    }
}
