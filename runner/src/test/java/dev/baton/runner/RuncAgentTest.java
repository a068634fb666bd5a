package dev.baton.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.oci.LayoutBlobSource;
import dev.baton.runner.testing.ScriptedPeer;
import dev.baton.runner.testing.TestImages;
import dev.baton.runner.update.Updater;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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
 * The agent with the runc executor against a scripted peer standing in for the server channel
 * (which lands separately): the local timeout and a decline travel the whole way to the socket.
 * Skipped, with the reason, where runc cannot run.
 */
@Tag("container")
class RuncAgentTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final RunnerKey key = RunnerKey.generate();
    private final ConcurrentLinkedQueue<ClaimedJob> queue = new ConcurrentLinkedQueue<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private ScriptedPeer peer;
    private Path work;
    private TestImages.Image image;

    @BeforeEach
    void setUp() throws Exception {
        Optional<String> unavailable = RuncExecutor.unavailableReason("runc");
        assumeTrue(unavailable.isEmpty(), () -> "runc agent tests skipped: " + unavailable.orElse(""));
        work = Files.createTempDirectory(
                Path.of("/tmp"),
                "baton-runc-agent",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        image = TestImages.busybox(work.resolve("layout"), List.of("true"), List.of());
        peer = new ScriptedPeer(key.reveal(), (p, m) -> {
            if (m instanceof RunnerMessage.Ready) {
                ClaimedJob job = queue.poll();
                return job == null ? List.of() : List.of(new ServerMessage.Job(job)); // else the ready waits
            }
            return List.of(ScriptedPeer.ackFor(m));
        });
        var executor = new RuncExecutor(
                new RuncExecutor.Options(
                        "runc",
                        work.resolve("runner"),
                        Architecture.X86_64,
                        true,
                        100_000,
                        256,
                        Optional.empty(),
                        OutputLimits.DEFAULT,
                        job -> new LayoutBlobSource(image.layout())),
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
    void localTimeoutStopsTheContainerAndReportsFailedWithPartialOutput() throws Exception {
        ClaimedJob job = job(image.digest(), List.of("sh", "-c", "echo begun; sleep 60"), 1);
        queue.add(job);
        peer.await(RunnerMessage.Running.class, WAIT);
        RunnerMessage.Failed failed = peer.await(RunnerMessage.Failed.class, WAIT);
        assertThat(failed.job()).isEqualTo(job.uuid());
        assertThat(failed.error()).as(failed.results().toString()).contains("timed out after 1 s");
        assertThat(failed.results().getFirst().stdout()).isEqualTo("begun\n");
    }

    @Test
    void anImageThatCannotBePulledIsDeclinedNotFailed() throws Exception {
        ClaimedJob job = job(ImageDigest.of("sha256:" + "ab".repeat(32)), null, 60);
        queue.add(job);
        RunnerMessage.Declined declined = peer.await(RunnerMessage.Declined.class, WAIT);
        assertThat(declined.job()).isEqualTo(job.uuid());
        assertThat(declined.reason()).contains("not in the layout");
        assertThat(peer.all()).noneMatch(m -> m instanceof RunnerMessage.Running || m instanceof RunnerMessage.Failed);
        // the slot is free again: the runner asks for more work
        peer.await(RunnerMessage.Ready.class, WAIT);
    }
}
