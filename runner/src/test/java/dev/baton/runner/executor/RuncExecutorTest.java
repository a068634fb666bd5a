package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
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
import java.time.Duration;
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
 * The runc executor with the real runc on a busybox rootfs (images built locally as OCI layouts;
 * the registry client is tested over HTTP in ImagePullerTest). Skipped, with the reason, only
 * where runc cannot run (not installed, not root).
 */
@Tag("container")
class RuncExecutorTest {
    private static final long MIB = 1 << 20;
    private static final Optional<String> UNAVAILABLE = whyUnavailable();

    private Path work;
    private TestImages.Image image;
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
                "baton-runc-test",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        image = TestImages.busybox(work.resolve("layout"), List.of("echo", "hello from the image"), List.of());
        executor = executor(image.layout());
    }

    private RuncExecutor executor(Path layout) {
        return new RuncExecutor(
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

    private ClaimedJob job(SpecView spec, List<String> cmd, int iterations, List<String> files) {
        return job(spec, image, cmd, iterations, files);
    }

    private static ClaimedJob job(
            SpecView spec, TestImages.Image img, List<String> cmd, int iterations, List<String> files) {
        return Jobs.claimed(
                spec,
                new JobConfig(
                        "local",
                        dev.baton.protocol.id.ProjectUuid.random(),
                        img.digest(),
                        null,
                        cmd,
                        Map.of("JOB_VAR", "from-job"),
                        JobTimeout.of(60),
                        files,
                        iterations));
    }

    private static SpecView spec(long memory, boolean network) {
        return Jobs.spec(Architecture.X86_64, 1, memory, network);
    }

    /** Records events; start() is called as soon as the execution is prepared. */
    private static final class Recorder implements ExecutionEvents {
        final CompletableFuture<ExecutionResult> finished = new CompletableFuture<>();
        final CompletableFuture<String> declined = new CompletableFuture<>();
        final CompletableFuture<DeclineCode> declineCode = new CompletableFuture<>();
        final CompletableFuture<Instant> started = new CompletableFuture<>();
        final List<String> progress = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile Execution execution;
        final CompletableFuture<Void> prepared = new CompletableFuture<>();

        @Override
        public void progress(String message) {
            progress.add(message);
        }

        @Override
        public void prepared() {
            prepared.complete(null);
            while (execution == null) Thread.onSpinWait();
            execution.start();
        }

        @Override
        public void declined(String reason) {
            declined.complete(reason);
            finished.completeExceptionally(new AssertionError("declined: " + reason));
        }

        @Override
        public void declined(DeclineCode code, String reason) {
            declineCode.complete(code);
            declined(reason);
        }

        @Override
        public void started(Instant at) {
            started.complete(at);
        }

        @Override
        public void finished(ExecutionResult result) {
            finished.complete(result);
        }
    }

    private Recorder run(ClaimedJob job) {
        Recorder r = new Recorder();
        r.execution = executor.prepare(job, r);
        return r;
    }

    private static ExecutionResult result(Recorder r) throws Exception {
        return r.finished.get(60, TimeUnit.SECONDS);
    }

    private List<String> containers() throws Exception {
        // This executor's state directory only: other agents' (and test runs') containers are not ours.
        Process p =
                new ProcessBuilder("runc", "--root", executor.stateDirectory().toString(), "list", "-q").start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out.lines().filter(l -> l.startsWith("baton-")).toList();
    }

    @Test
    void echoJobUsesTheImageCommandAndRunsEveryIteration() throws Exception {
        assertThat(executor.heldImages().orElseThrow().mostRecentFirst())
                .as("nothing prepared yet")
                .isEmpty();
        Recorder r = run(job(spec(256 * MIB, false), null, 2, List.of()));
        ExecutionResult result = result(r);
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results()).hasSize(2).allSatisfy(it -> {
            assertThat(it.exitCode()).isZero();
            assertThat(it.stdout()).isEqualTo("hello from the image\n");
        });
        assertThat(r.started).isDone();
        assertThat(r.progress).contains("pulling manifest", "unpacking layer 1/1");
        // Image affinity: once prepared, the image is one this runner holds (reported to the server).
        assertThat(executor.heldImages().orElseThrow().mostRecentFirst()).containsExactly(image.digest());
        assertThat(containers()).isEmpty();
        // cleaned up before it reported
        assertThat(work.resolve("runner/bundles")).isEmptyDirectory();
    }

    @Test
    void aPairedJobRunsTheBaselineCommandInTheSameImageOnItsSideOfEachPair() throws Exception {
        // Issue 45: pairs of the baseline (A) and the candidate (B) alternate in the order the seed
        // draws; each side knows its pair and side, and prints them.
        String print = "echo \"$0 $BATON_PAIR $BATON_SIDE $BATON_ITERATION\"";
        PairedConfig paired = new PairedConfig(List.of("sh", "-c", print, "A"), 3, 45, null, null, null, "json", null);
        JobConfig config = new JobConfig(
                "local",
                dev.baton.protocol.id.ProjectUuid.random(),
                image.digest(),
                null,
                List.of("sh", "-c", print, "B"),
                Map.of(),
                JobTimeout.of(60),
                List.of(),
                null,
                paired);
        ExecutionResult result = result(run(Jobs.claimed(spec(256 * MIB, false), config)));
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results()).hasSize(6);
        for (int i = 0; i < 6; i++) {
            PairedConfig.Side side = paired.side(i);
            assertThat(result.results().get(i).stdout())
                    .isEqualTo((side == PairedConfig.Side.BASELINE ? "A" : "B") + " " + i / 2 + " " + side.wireName()
                            + " " + (i + 1) + "\n");
        }
        assertThat(containers()).isEmpty();
    }

    @Test
    void isolationReadOnlyRootWritableWorkAndTmpEnvAndUser() throws Exception {
        String script = "touch /rootfile 2>/dev/null && echo root-writable || echo root-readonly; "
                + "touch /tmp/t && echo tmp-ok; pwd; echo $JOB_VAR $IMAGE_VAR $BATON_ITERATION; id -u";
        ExecutionResult result = result(run(job(spec(256 * MIB, false), List.of("sh", "-c", script), 1, List.of())));
        String expectedUid = executor.usesUserNamespace() ? "0" : "0";
        assertThat(result.results().getFirst().stdout())
                .isEqualTo("root-readonly\ntmp-ok\n/work\nfrom-job from-image 1\n" + expectedUid + "\n");
    }

    @Test
    void noNetworkButLoopback() throws Exception {
        ExecutionResult result =
                result(run(job(spec(256 * MIB, false), List.of("cat", "/proc/net/dev"), 1, List.of())));
        List<String> interfaces = result.results()
                .getFirst()
                .stdout()
                .lines()
                .skip(2)
                .map(l -> l.strip().split(":")[0])
                .toList();
        assertThat(interfaces).containsExactly("lo");
    }

    @Test
    void theWorkloadIsConfinedToTheBenchmarkCpus() throws Exception {
        int cpus = Runtime.getRuntime().availableProcessors();
        assumeTrue(cpus > 1, "needs more than one CPU");
        String last = Integer.toString(cpus - 1);
        executor = new RuncExecutor(
                new RuncExecutor.Options(
                        "runc",
                        work.resolve("runner"),
                        Architecture.X86_64,
                        true,
                        100_000,
                        256,
                        Optional.of(last),
                        OutputLimits.DEFAULT,
                        job -> new LayoutBlobSource(image.layout())),
                Clock.systemUTC());
        ExecutionResult result = result(run(
                job(spec(256 * MIB, false), List.of("grep", "Cpus_allowed_list", "/proc/self/status"), 1, List.of())));
        assertThat(result.results().getFirst().stdout().strip())
                .endsWith("\t" + last)
                .matches("Cpus_allowed_list:\\s+" + last);
    }

    @Test
    void aSpecWithNetworkSharesTheHostNetwork() throws Exception {
        List<String> host = Files.readAllLines(Path.of("/proc/net/dev")).stream()
                .skip(2)
                .map(l -> l.strip().split(":")[0])
                .toList();
        ExecutionResult result = result(run(job(spec(256 * MIB, true), List.of("cat", "/proc/net/dev"), 1, List.of())));
        List<String> inside = result.results()
                .getFirst()
                .stdout()
                .lines()
                .skip(2)
                .map(l -> l.strip().split(":")[0])
                .toList();
        assertThat(inside).containsExactlyInAnyOrderElementsOf(host);
    }

    @Test
    void memoryLimitOomKillIsReportedAsSuch() throws Exception {
        ExecutionResult result = result(run(job(
                spec(32 * MIB, false),
                List.of("sh", "-c", "echo before; x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo after ${#x}"),
                1,
                List.of())));
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.OUT_OF_MEMORY);
        assertThat(result.detail()).contains(Long.toString(32 * MIB));
        assertThat(result.results().getFirst().stdout()).startsWith("before");
        assertThat(containers()).isEmpty();
    }

    @Test
    void outputFilesAreCollected() throws Exception {
        ExecutionResult result = result(run(job(
                spec(256 * MIB, false),
                List.of("sh", "-c", "echo abs > /work/a.txt; mkdir sub; echo rel > sub/b.txt"),
                1,
                List.of("/work/a.txt", "sub/b.txt", "/etc/group", "missing.txt"))));
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results().getFirst().output())
                .containsEntry("/work/a.txt", "abs\n")
                .containsEntry("sub/b.txt", "rel\n")
                .containsEntry("/etc/group", "root:x:0:\nbench:x:1000:\n")
                .doesNotContainKey("missing.txt");
    }

    @Test
    void pathEscapesAreRefusedIncludingThroughSymlinks() throws Exception {
        Path secret = Files.writeString(work.resolve("host-secret"), "do not leak");
        ExecutionResult result = result(run(job(
                spec(256 * MIB, false),
                List.of("sh", "-c", "ln -s " + secret + " /work/leak; ln -s ../../../../../../.. /work/up"),
                1,
                List.of("/work/leak", "../../host-secret", "/work/up/etc/passwd"))));
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.ERROR);
        assertThat(result.detail())
                .contains("/work/leak: escapes")
                .contains("../../host-secret: escapes")
                .contains("/work/up/etc/passwd: escapes");
        assertThat(result.results().getFirst().output()).isEmpty();
        assertThat(result.results().getFirst().output().values()).noneMatch(v -> v.contains("do not leak"));
    }

    @Test
    void aLayerThatEscapesIsDeclined() throws Exception {
        TestImages.Image evil = TestImages.busybox(
                work.resolve("evil"),
                List.of("true"),
                List.of(new TarWriter().file("../../escaped", "x").tarGz()));
        executor = executor(evil.layout());
        Recorder r = run(job(spec(256 * MIB, false), evil, null, 1, List.of()));
        assertThat(r.declined.get(60, TimeUnit.SECONDS))
                .contains("image refused")
                .contains("escapes");
        assertThat(r.declineCode.get(60, TimeUnit.SECONDS)).isEqualTo(DeclineCode.UNPACK_FAILED);
        assertThat(work.resolve("runner/escaped")).doesNotExist();
    }

    @Test
    void aJobWithoutAnImageIsDeclinedAsImageRequired() throws Exception {
        ClaimedJob noImage = Jobs.claimed(
                spec(256 * MIB, false),
                new JobConfig(
                        "local",
                        dev.baton.protocol.id.ProjectUuid.random(),
                        null,
                        null,
                        List.of("true"),
                        Map.of(),
                        JobTimeout.of(60),
                        null,
                        1));
        Recorder r = run(noImage);
        assertThat(r.declineCode.get(60, TimeUnit.SECONDS)).isEqualTo(DeclineCode.IMAGE_REQUIRED);
        assertThat(r.declined.get()).contains("no image");
    }

    @Test
    void anImageAndJobWithoutACommandAreDeclinedAsNoCommand() throws Exception {
        TestImages.Image bare = TestImages.busybox(work.resolve("bare"), List.of(), List.of());
        executor = executor(bare.layout());
        Recorder r = run(job(spec(256 * MIB, false), bare, null, 1, List.of()));
        assertThat(r.declineCode.get(60, TimeUnit.SECONDS)).isEqualTo(DeclineCode.NO_COMMAND);
    }

    @Test
    void anImageLargerThanTheSpecsDiskIsDeclinedAndCleanedUp() throws Exception {
        // 64 MiB of zeros: a few tens of KiB compressed, more than the 32 MiB disk of the spec.
        TestImages.Image bomb = TestImages.busybox(
                work.resolve("bomb"),
                List.of("true"),
                List.of(new TarWriter().zeros("big", 64 * (int) MIB).tarGz()));
        assertThat(Files.size(work.resolve("bomb/blobs/sha256")
                        .resolve(bomb.layerDigests().getLast().substring(7))))
                .isLessThan(MIB);
        executor = executor(bomb.layout());
        SpecView base = spec(256 * MIB, false);
        SpecView small = new SpecView(
                base.uuid(),
                base.name(),
                base.slug(),
                base.architecture(),
                base.cpu(),
                base.memory(),
                32 * MIB,
                base.network(),
                base.created(),
                base.modified(),
                base.archived());
        Recorder r = run(job(small, bomb, null, 1, List.of()));
        assertThat(r.declined.get(60, TimeUnit.SECONDS))
                .contains("unpacks to more than " + 32 * MIB + " bytes")
                .contains("disk size");
        assertThat(r.started).isNotDone();
        try (var bundles = Files.list(work.resolve("runner/bundles"))) {
            assertThat(bundles.toList())
                    .as("the partly unpacked bundle is removed")
                    .isEmpty();
        }
    }

    @Test
    void theRunnersUnpackCapAppliesBesideTheSpec() throws Exception {
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
                        job -> new LayoutBlobSource(image.layout()),
                        256 * 1024),
                Clock.systemUTC());
        Recorder r = run(job(spec(256 * MIB, false), null, 1, List.of()));
        assertThat(r.declined.get(60, TimeUnit.SECONDS)).contains("unpacks to more than 262144 bytes");
    }

    @Test
    void bundlesArePrivateAndSetuidBitsAreDroppedWithoutAUserNamespace() throws Exception {
        TestImages.Image suid = TestImages.busybox(
                work.resolve("suid"),
                List.of("sleep", "30"),
                List.of(new TarWriter()
                        .file("bin/rootshell", 04755, "#!/bin/sh\n".getBytes())
                        .file("bin/groupy", 02755, "x".getBytes())
                        .tarGz()));
        for (boolean userNamespace : new boolean[] {false, true}) {
            executor = new RuncExecutor(
                    new RuncExecutor.Options(
                            "runc",
                            work.resolve("runner"),
                            Architecture.X86_64,
                            userNamespace,
                            100_000,
                            256,
                            Optional.empty(),
                            OutputLimits.DEFAULT,
                            job -> new LayoutBlobSource(suid.layout())),
                    Clock.systemUTC());
            ClaimedJob job = job(spec(256 * MIB, false), suid, null, 1, List.of());
            Recorder r = run(job);
            r.started.get(60, TimeUnit.SECONDS);
            Path bundle = work.resolve("runner/bundles").resolve(job.uuid().toString());
            assertThat(mode(work.resolve("runner/bundles"))).isEqualTo(0700);
            assertThat(mode(bundle)).isEqualTo(0700);
            boolean keeps = executor.usesUserNamespace();
            assertThat(mode(bundle.resolve("rootfs/bin/rootshell"))).isEqualTo(keeps ? 04755 : 0755);
            assertThat(mode(bundle.resolve("rootfs/bin/groupy"))).isEqualTo(keeps ? 02755 : 0755);
            r.execution.stop(Duration.ofSeconds(1));
            r.finished.get(60, TimeUnit.SECONDS);
        }
    }

    private static int mode(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:mode", java.nio.file.LinkOption.NOFOLLOW_LINKS) & 07777;
    }

    @Test
    void aFullDiskDeclines() throws Exception {
        // A real full disk: a 256 KiB tmpfs as the work dir, smaller than the busybox layer.
        Path small = Files.createDirectories(work.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(mount.getInputStream().readAllBytes());
        assumeTrue(mount.waitFor() == 0, () -> "cannot mount a tmpfs here: " + out);
        try {
            executor = new RuncExecutor(
                    new RuncExecutor.Options(
                            "runc",
                            small,
                            Architecture.X86_64,
                            true,
                            100_000,
                            256,
                            Optional.empty(),
                            OutputLimits.DEFAULT,
                            job -> new LayoutBlobSource(image.layout())),
                    Clock.systemUTC());
            Recorder r = run(job(spec(256 * MIB, false), null, 1, List.of()));
            assertThat(r.declined.get(60, TimeUnit.SECONDS)).startsWith("disk full");
            assertThat(r.declineCode.get(60, TimeUnit.SECONDS))
                    .isIn(DeclineCode.PULL_FAILED, DeclineCode.UNPACK_FAILED);
            assertThat(r.started).isNotDone();
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }

    @Test
    void cancelMidRunTerminatesAndReturnsPartialOutput() throws Exception {
        Recorder r = run(job(spec(256 * MIB, false), List.of("sh", "-c", "echo partial; sleep 60"), 1, List.of()));
        r.started.get(60, TimeUnit.SECONDS);
        waitForOutputToBeWritten();
        r.execution.stop(Duration.ofSeconds(2));
        ExecutionResult result = result(r);
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.STOPPED);
        assertThat(result.results().getFirst().stdout()).isEqualTo("partial\n");
        assertThat(result.results().getFirst().exitCode()).isNotZero();
        assertThat(containers()).isEmpty();
    }

    @Test
    void stopWhilePreparingNeverStarts() throws Exception {
        Recorder r = new Recorder();
        Execution e =
                executor.prepare(job(spec(256 * MIB, false), List.of("true"), 1, List.of()), new ExecutionEvents() {
                    @Override
                    public void progress(String message) {}

                    @Override
                    public void prepared() {
                        r.prepared.complete(null);
                    }

                    @Override
                    public void declined(String reason) {
                        r.declined.complete(reason);
                    }

                    @Override
                    public void started(Instant at) {
                        r.started.complete(at);
                    }

                    @Override
                    public void finished(ExecutionResult result) {
                        r.finished.complete(result);
                    }
                });
        e.stop(Duration.ZERO);
        ExecutionResult result = r.finished.get(60, TimeUnit.SECONDS);
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.STOPPED);
        assertThat(result.results()).isEmpty();
        assertThat(r.started).isNotDone();
    }

    @Test
    void sweepRemovesLeftoverContainers() throws Exception {
        // A container left by a "crashed" agent: a job is started and its agent never cleans up.
        ClaimedJob job = job(spec(256 * MIB, false), List.of("sleep", "60"), 1, List.of());
        Recorder r = run(job);
        r.started.get(60, TimeUnit.SECONDS);
        waitUntilListed();
        assertThat(executor.sweep())
                .as("reported against its job, so the agent can report the job lost")
                .containsExactly(new Leftover(job.uuid(), "container baton-" + job.uuid() + "-1"));
        assertThat(containers()).isEmpty();
        ExecutionResult result = result(r);
        assertThat(result.results().getFirst().exitCode()).isNotZero();
    }

    /** Two agents on one machine (two work directories): one's start-up sweep must not kill the other's jobs. */
    @Test
    void sweepLeavesTheContainersOfAnotherWorkDirectoryAlone() throws Exception {
        ClaimedJob job = job(spec(256 * MIB, false), List.of("sleep", "60"), 1, List.of());
        Recorder r = run(job);
        r.started.get(60, TimeUnit.SECONDS);
        waitUntilListed();
        RuncExecutor other = new RuncExecutor(
                new RuncExecutor.Options(
                        "runc",
                        work.resolve("other-runner"),
                        Architecture.X86_64,
                        true,
                        100_000,
                        256,
                        Optional.empty(),
                        OutputLimits.DEFAULT,
                        j -> new LayoutBlobSource(image.layout())),
                Clock.systemUTC());
        assertThat(other.sweep()).isEmpty();
        assertThat(containers()).containsExactly("baton-" + job.uuid() + "-1");
        r.execution.stop(Duration.ZERO);
        result(r);
        assertThat(containers()).isEmpty();
    }

    private void waitUntilListed() throws Exception {
        for (int i = 0; i < 600 && containers().isEmpty(); i++) Thread.sleep(50); // up to 30 s on a busy machine
        assertThat(containers()).isNotEmpty();
    }

    /** The container prints at once; give its pipe a moment. Not a timing assertion. */
    private static void waitForOutputToBeWritten() throws InterruptedException {
        Thread.sleep(500);
    }
}
