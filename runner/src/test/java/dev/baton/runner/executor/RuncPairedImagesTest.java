package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.oci.LayoutBlobSource;
import dev.baton.runner.testing.TarWriter;
import dev.baton.runner.testing.TestImages;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A paired job whose baseline is an image of its own (issue 45), on the real runc: two busybox
 * images that differ in one file ({@code /etc/flavour}: "old" in the baseline's, "new" in the
 * job's) and in their commands. Every baseline side must run in the baseline's image and every
 * candidate side in the job's, in the order the seed draws, under one prepare; the files each side
 * leaves are collected from its own image. Skipped, with the reason, where runc cannot run.
 */
@Tag("container")
class RuncPairedImagesTest {
    private static final long MIB = 1 << 20;
    private static final Optional<String> UNAVAILABLE = whyUnavailable();
    private static final String PRINT = "echo \"$0 $(cat /etc/flavour) $BATON_PAIR $BATON_SIDE\"";

    private Path work;
    private TestImages.Image candidate;
    private TestImages.Image baseline;
    private RuncExecutor executor;

    private static Optional<String> whyUnavailable() {
        Optional<String> runc = RuncExecutor.unavailableReason("runc");
        if (runc.isEmpty() && !Files.isExecutable(TestImages.BUSYBOX))
            return Optional.of("no static busybox at /bin/busybox (apt-get install busybox-static)");
        return runc;
    }

    @BeforeEach
    void setUp() throws IOException {
        assumeTrue(UNAVAILABLE.isEmpty(), () -> "runc tests skipped: " + UNAVAILABLE.orElse(""));
        // Not @TempDir (mode 700): a user-namespaced root must be able to reach the bundle.
        work = Files.createTempDirectory(
                Path.of("/tmp"),
                "baton-runc-paired",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        // Both images in one layout, as both would be in one project's registry.
        Path layout = work.resolve("layout");
        candidate = TestImages.busybox(layout, List.of("sh", "-c", PRINT, "job-image-cmd"), List.of(flavour("new")));
        baseline =
                TestImages.busybox(layout, List.of("sh", "-c", PRINT, "baseline-image-cmd"), List.of(flavour("old")));
        executor = new RuncExecutor(
                new RuncExecutor.Options(
                        "runc",
                        work.resolve("runner"),
                        Architecture.X86_64,
                        true,
                        100_000,
                        256,
                        Optional.empty(),
                        OutputLimits.DEFAULT,
                        job -> new LayoutBlobSource(layout)),
                Clock.systemUTC());
    }

    @AfterEach
    void tearDown() {
        if (work != null) Trees.deleteTree(work);
    }

    /** A layer that adds {@code /etc/flavour} with {@code text}. */
    private static byte[] flavour(String text) {
        return new TarWriter().dir("etc", 0755).file("etc/flavour", text + "\n").tarGz();
    }

    private ClaimedJob paired(List<String> jobCmd, List<String> baselineCmd, ImageDigest baselineImage, int pairs) {
        PairedConfig paired = new PairedConfig(baselineCmd, pairs, 4545, null, null, null, "json", null, baselineImage);
        return Jobs.claimed(
                Jobs.spec(Architecture.X86_64, 1, 256 * MIB, false),
                new JobConfig(
                        "local",
                        dev.baton.protocol.id.ProjectUuid.random(),
                        candidate.digest(),
                        null,
                        jobCmd,
                        Map.of(),
                        JobTimeout.of(60),
                        List.of("/etc/flavour"),
                        null,
                        paired));
    }

    @Test
    void baselineSidesRunInTheBaselineImageAndCandidateSidesInTheJobs() throws Exception {
        // No baseline command: the baseline image's own Cmd runs, as the job's own runs in its image.
        ClaimedJob job = paired(null, null, baseline.digest(), 4);
        // The one executor that says it runs a baseline image, so the agent hands it such a job.
        assertThat(executor.runsBaselineImage()).isTrue();
        assertThat(BaselineImageRefusal.check(executor, job)).isEmpty();
        Events events = new Events();
        events.execution = executor.prepare(job, events);
        ExecutionResult result = events.finished.get(60, TimeUnit.SECONDS);

        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results()).hasSize(8);
        PairedConfig config = job.config().paired();
        boolean bothOrders = false;
        for (int i = 0; i < 8; i++) {
            boolean isBaseline = config.side(i) == PairedConfig.Side.BASELINE;
            var it = result.results().get(i);
            assertThat(it.stdout())
                    .as("iteration %d", i)
                    .isEqualTo(
                            isBaseline
                                    ? "baseline-image-cmd old " + i / 2 + " baseline\n"
                                    : "job-image-cmd new " + i / 2 + " candidate\n");
            assertThat(it.output().get("/etc/flavour"))
                    .as("the file of iteration %d comes from its side's image", i)
                    .isEqualTo(isBaseline ? "old\n" : "new\n");
            if (i % 2 == 0 && config.baselineFirst(i / 2) != config.baselineFirst(0)) bothOrders = true;
        }
        assertThat(bothOrders)
                .as("the seed draws both orders, so the sides are not told apart by position")
                .isTrue();
        assertThat(events.progress).contains("baseline image: pulling manifest", "baseline image: unpacking layer 2/2");
        // Image affinity: the runner now holds both images.
        assertThat(executor.heldImages().orElseThrow().mostRecentFirst())
                .containsExactlyInAnyOrder(candidate.digest(), baseline.digest());
        assertThat(work.resolve("runner/bundles")).isEmptyDirectory();
    }

    @Test
    void aBaselineCommandReplacesTheBaselineImagesCmd() throws Exception {
        ClaimedJob job = paired(List.of("sh", "-c", PRINT, "B"), List.of("sh", "-c", PRINT, "A"), baseline.digest(), 2);
        Events events = new Events();
        events.execution = executor.prepare(job, events);
        ExecutionResult result = events.finished.get(60, TimeUnit.SECONDS);

        assertThat(result.results()).hasSize(4);
        for (int i = 0; i < 4; i++) {
            boolean isBaseline = job.config().paired().side(i) == PairedConfig.Side.BASELINE;
            assertThat(result.results().get(i).stdout())
                    .isEqualTo(isBaseline ? "A old " + i / 2 + " baseline\n" : "B new " + i / 2 + " candidate\n");
        }
    }

    @Test
    void aBaselineImageTheRunnerCannotPullDeclinesTheJob() throws Exception {
        ImageDigest missing = ImageDigest.of("sha256:" + "ab".repeat(32));
        Events events = new Events();
        events.execution = executor.prepare(paired(null, null, missing, 2), events);

        assertThat(events.declineCode.get(60, TimeUnit.SECONDS)).isEqualTo(DeclineCode.PULL_FAILED);
        assertThat(events.finished).isNotDone();
        assertThat(work.resolve("runner/bundles")).isEmptyDirectory();
    }

    /** Records what an execution reports; starts it as soon as it is prepared. */
    private static final class Events implements ExecutionEvents {
        final CompletableFuture<ExecutionResult> finished = new CompletableFuture<>();
        final CompletableFuture<DeclineCode> declineCode = new CompletableFuture<>();
        final List<String> progress = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile Execution execution;

        @Override
        public void progress(String message) {
            progress.add(message);
        }

        @Override
        public void prepared() {
            while (execution == null) Thread.onSpinWait();
            execution.start();
        }

        @Override
        public void declined(String reason) {
            declineCode.complete(DeclineCode.OTHER);
        }

        @Override
        public void declined(DeclineCode code, String reason) {
            declineCode.complete(code);
        }

        @Override
        public void started(Instant at) {}

        @Override
        public void finished(ExecutionResult result) {
            finished.complete(result);
        }
    }
}
