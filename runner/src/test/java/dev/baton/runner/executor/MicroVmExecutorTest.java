package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.oci.LayoutBlobSource;
import dev.baton.runner.testing.TestImages;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The microVM executor with real QEMU ({@code -M microvm}) under TCG, booting Debian's kernel and
 * Baton's busybox initramfs, on a busybox image built locally. TCG is forced so the tests do not
 * depend on KVM; each test boots as few VMs as it can (a TCG boot takes seconds). Skipped, with
 * the reason, where QEMU, the kernel, busybox-static, mkfs.ext4 or cpio are missing.
 */
@Tag("microvm")
class MicroVmExecutorTest {
    private static final long MIB = 1 << 20;
    private static final Path KERNEL_DIR = Path.of("/boot");
    private static final Guest GUEST = Guest.find();

    private Path work;
    private TestImages.Image image;
    private MicroVmExecutor executor;

    /** The host's guest kernel and its modules, or why the microVM executor cannot run here; found once. */
    private record Guest(Optional<String> unavailable, Path kernel, Path modules) {
        static Guest find() {
            Optional<Path> k;
            try {
                k = MicroVmKernels.newest(KERNEL_DIR, Path.of("/lib/modules"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (k.isEmpty()) {
                return new Guest(
                        Optional.of(
                                "no /boot/vmlinuz-* with modules in /lib/modules (apt-get install linux-image-amd64)"),
                        null,
                        null);
            }
            Path modules = MicroVmKernels.modulesFor(k.get(), Path.of("/lib/modules"));
            return new Guest(
                    MicroVmExecutor.unavailableReason("qemu-system-x86_64", k.get(), modules, TestImages.BUSYBOX),
                    k.get(),
                    modules);
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        assumeTrue(
                GUEST.unavailable().isEmpty(),
                () -> "microVM tests skipped: " + GUEST.unavailable().orElse(""));
        assumeTrue(
                Files.isReadable(GUEST.kernel()),
                "the guest kernel is not readable (run as root or make /boot/vmlinuz-* readable)");
        work = Files.createTempDirectory(Path.of("/tmp"), "bvm");
        image = TestImages.busybox(work.resolve("layout"), List.of("echo", "hello from the vm"), List.of());
        executor = new MicroVmExecutor(
                options(QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg"), GUEST.kernel()), Clock.systemUTC());
    }

    private MicroVmExecutor.Options options(Hypervisor hypervisor, Path guestKernel) {
        return new MicroVmExecutor.Options(
                hypervisor,
                work.resolve("r"),
                Architecture.X86_64,
                guestKernel,
                GUEST.modules(),
                TestImages.BUSYBOX,
                OutputLimits.DEFAULT,
                job -> new LayoutBlobSource(image.layout()),
                Long.MAX_VALUE);
    }

    @AfterEach
    void tearDown() {
        if (executor != null) executor.sweep(); // a failed test must not leave a VM running
        if (work != null) Trees.deleteTree(work);
    }

    private static SpecView spec(long memory, boolean network) {
        return spec(1, memory, network);
    }

    private static SpecView spec(int cpus, long memory, boolean network) {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        return new SpecView(
                SpecUuid.random(), "vm", "vm", Architecture.X86_64, cpus, memory, 64 * MIB, network, t, t, null);
    }

    private ClaimedJob job(SpecView spec, List<String> cmd, int iterations, List<String> files) {
        return Jobs.claimed(
                spec,
                new JobConfig(
                        "local",
                        dev.baton.protocol.id.ProjectUuid.random(),
                        image.digest(),
                        null,
                        cmd,
                        Map.of("JOB_VAR", "from 'the' job"),
                        JobTimeout.of(120),
                        files,
                        iterations));
    }

    /** Records events; start() is called as soon as the execution is prepared. */
    private static final class Recorder implements ExecutionEvents {
        final CompletableFuture<ExecutionResult> finished = new CompletableFuture<>();
        final CompletableFuture<Instant> started = new CompletableFuture<>();
        final StringBuffer live = new StringBuffer();
        final CompletableFuture<String> declined = new CompletableFuture<>();
        volatile Execution execution;
        volatile ClaimedJob job;

        @Override
        public void progress(String message) {}

        @Override
        public void prepared() {
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
            declined(code.wireName() + ": " + reason);
        }

        @Override
        public void started(Instant at) {
            started.complete(at);
        }

        @Override
        public void finished(ExecutionResult result) {
            finished.complete(result);
        }

        @Override
        public void output(int iteration, dev.baton.protocol.message.LogStream stream, byte[] b, int off, int len) {
            live.append(new String(b, off, len, StandardCharsets.UTF_8));
        }
    }

    private Recorder run(ClaimedJob job) {
        Recorder r = new Recorder();
        r.job = job;
        r.execution = executor.prepare(job, r);
        return r;
    }

    private static ExecutionResult result(Recorder r) throws Exception {
        return r.finished.get(150, TimeUnit.SECONDS);
    }

    /** QEMU processes of this test's executor still alive. */
    private List<ProcessHandle> vms() {
        return ProcessHandle.allProcesses()
                .filter(h -> String.join(" ", h.info().arguments().orElse(new String[0]))
                        .contains(work.toString()))
                .toList();
    }

    @Test
    void aJobRunsInTheVmWithItsStdoutStderrExitCodeFilesAndNoNetwork() throws Exception {
        String script =
                "echo out $JOB_VAR $BATON_ITERATION; echo err >&2; pwd; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ';"
                        + " echo collected > result.txt; ln -s /etc/passwd link.txt; exit 3";
        Recorder r = run(job(
                spec(64 * MIB, false),
                List.of("sh", "-c", script),
                2,
                List.of("result.txt", "/etc/group", "missing", "link.txt")));
        ExecutionResult result = result(r);
        assertThat(result.kind()).as(result.detail()).isEqualTo(ExecutionResult.Kind.EXITED);
        // a non-zero exit ends the job after its first iteration
        assertThat(result.results()).hasSize(1);
        var it = result.results().getFirst();
        assertThat(it.exitCode()).isEqualTo(3);
        assertThat(it.stdout()).isEqualTo("out from 'the' job 1\n/work\nlo\n");
        assertThat(it.stderr()).isEqualTo("err\n");
        assertThat(it.output())
                .containsEntry("result.txt", "collected\n")
                .containsEntry("/etc/group", "root:x:0:\nbench:x:1000:\n")
                .containsEntry("link.txt", "root:x:0:0:root:/root:/bin/sh\nbench:x:1000:1000::/home:/bin/sh\n")
                .doesNotContainKey("missing");
        assertThat(r.live.toString()).contains("out from 'the' job 1").contains("err");
        assertThat(vms()).isEmpty();
        assertThat(work.resolve("r/microvm/jobs")).isEmptyDirectory();
    }

    @Test
    void aPairedJobRunsTheBaselineInItsOwnImageBootingADiskOfItsOwn() throws Exception {
        // Issue 45 (decision 0076): the baseline's image is a second disk; its iterations boot it.
        String print = "echo \"$0 $(cat /etc/flavour) $BATON_PAIR $BATON_SIDE $BATON_ITERATION\"";
        Path layout = image.layout(); // the executor's blob source serves this layout
        TestImages.Image candidate =
                TestImages.busybox(layout, List.of("sh", "-c", print, "job-image-cmd"), List.of(flavour("new")));
        TestImages.Image baseline =
                TestImages.busybox(layout, List.of("sh", "-c", print, "baseline-image-cmd"), List.of(flavour("old")));
        PairedConfig paired = new PairedConfig(null, 2, 45, null, null, null, "json", null, baseline.digest());
        ClaimedJob job = pairedJob(candidate.digest(), List.of("sh", "-c", print, "B"), paired);
        assertThat(executor.runsBaselineImage()).isTrue();
        assertThat(BaselineImageRefusal.check(executor, job)).isEmpty();
        ExecutionResult result = result(run(job));
        assertThat(result.kind()).as(result.detail()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results()).hasSize(4);
        for (int i = 0; i < 4; i++) {
            PairedConfig.Side side = paired.side(i);
            // The baseline side runs its image's own command (no baseline cmd) in its own files.
            String expected = side == PairedConfig.Side.BASELINE ? "baseline-image-cmd old" : "B new";
            assertThat(result.results().get(i).stdout())
                    .isEqualTo(expected + " " + i / 2 + " " + side.wireName() + " " + (i + 1) + "\n");
        }
        assertThat(vms()).isEmpty();
        assertThat(work.resolve("r/microvm/jobs")).isEmptyDirectory();
    }

    /** A paired job of {@code image} running {@code cmd} as its candidate. */
    private ClaimedJob pairedJob(dev.baton.protocol.value.ImageDigest image, List<String> cmd, PairedConfig paired) {
        return Jobs.claimed(
                spec(64 * MIB, false),
                new JobConfig(
                        "local",
                        dev.baton.protocol.id.ProjectUuid.random(),
                        image,
                        null,
                        cmd,
                        Map.of(),
                        JobTimeout.of(120),
                        List.of(),
                        null,
                        paired));
    }

    /** A layer that adds {@code /etc/flavour} with {@code text}. */
    private static byte[] flavour(String text) {
        return new dev.baton.runner.testing.TarWriter()
                .dir("etc", 0755)
                .file("etc/flavour", text + "\n")
                .tarGz();
    }

    @Test
    void anImageTheRunnerCannotPullIsDeclinedAsPullFailedAndBootsNoVm() throws Exception {
        // Pulled through ImageRootfs as runc pulls, with its decline codes.
        var missing = dev.baton.protocol.value.ImageDigest.of("sha256:" + "ab".repeat(32));
        JobConfig config = new JobConfig(
                "local",
                dev.baton.protocol.id.ProjectUuid.random(),
                missing,
                null,
                List.of("true"),
                Map.of(),
                JobTimeout.of(60),
                List.of(),
                1);
        Recorder r = run(Jobs.claimed(spec(64 * MIB, false), config));
        assertThat(r.declined.get(60, TimeUnit.SECONDS)).startsWith("pull_failed: ");
        assertThat(vms()).isEmpty();
        assertThat(work.resolve("r/microvm/jobs")).isEmptyDirectory();
    }

    @Test
    void aPairedJobRunsTheBaselineInTheSameImageOnItsSideOfEachPair() throws Exception {
        // Issue 45: two pairs, four boots; each side prints who it is, its pair and its side.
        String print = "echo \"$0 $BATON_PAIR $BATON_SIDE $BATON_ITERATION\"";
        PairedConfig paired = new PairedConfig(List.of("sh", "-c", print, "A"), 2, 45, null, null, null, "json", null);
        ClaimedJob job = pairedJob(image.digest(), List.of("sh", "-c", print, "B"), paired);
        ExecutionResult result = result(run(job));
        assertThat(result.kind()).as(result.detail()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results()).hasSize(4);
        for (int i = 0; i < 4; i++) {
            PairedConfig.Side side = paired.side(i);
            assertThat(result.results().get(i).stdout())
                    .isEqualTo((side == PairedConfig.Side.BASELINE ? "A" : "B") + " " + i / 2 + " " + side.wireName()
                            + " " + (i + 1) + "\n");
        }
        assertThat(vms()).isEmpty();
    }

    @Test
    void cancellingARunningJobKillsTheVm() throws Exception {
        Recorder r = run(job(spec(64 * MIB, false), List.of("sh", "-c", "echo sleeping; sleep 600"), 1, List.of()));
        r.started.get(150, TimeUnit.SECONDS);
        assertThat(vms()).isNotEmpty();
        r.execution.stop(Duration.ofSeconds(2));
        ExecutionResult result = result(r);
        assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.STOPPED);
        assertThat(result.results().getFirst().exitCode()).isEqualTo(VmProcess.KILLED);
        assertThat(vms()).isEmpty();
        assertThat(work.resolve("r/microvm/jobs")).isEmptyDirectory();
    }

    @Test
    void aVmLeftRunningByACrashedAgentIsKilledAndReportedByTheNextAgentsSweep() throws Exception {
        Recorder r = run(job(spec(64 * MIB, false), List.of("sh", "-c", "sleep 600"), 1, List.of()));
        r.started.get(150, TimeUnit.SECONDS);
        assertThat(vms()).hasSize(1);
        // The next agent on the same work directory, as after a crash of this one.
        MicroVmExecutor next = new MicroVmExecutor(
                options(QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg"), GUEST.kernel()), Clock.systemUTC());
        List<Leftover> leftovers = next.sweep();
        assertThat(leftovers).singleElement().satisfies(l -> assertThat(l.job()).isEqualTo(r.job.uuid()));
        assertThat(vms()).isEmpty();
        assertThat(work.resolve("r/microvm/jobs")).doesNotExist();
        result(r); // the old execution ends too: its VM is gone
    }

    @Test
    void aSpecWithNetworkGetsUserModeNetworking() throws Exception {
        String script = "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | sort; ip route | grep default";
        ExecutionResult result = result(run(job(spec(64 * MIB, true), List.of("sh", "-c", script), 1, List.of())));
        assertThat(result.kind()).as(result.detail()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results().getFirst().stdout()).startsWith("eth0\nlo\ndefault via 10.0.2.2");
        assertThat(vms()).isEmpty();
    }

    /** QEMU itself, started paused ({@code -S}): a guest that never boots, as a hung early boot looks from outside. */
    private record Paused(Hypervisor real) implements Hypervisor {
        @Override
        public String name() {
            return real.name();
        }

        @Override
        public String describe() {
            return real.describe();
        }

        @Override
        public String accelerator() {
            return real.accelerator();
        }

        @Override
        public String version() {
            return real.version();
        }

        @Override
        public List<String> command(Vm vm) {
            List<String> c = new java.util.ArrayList<>(real.command(vm));
            c.add("-S");
            return c;
        }
    }

    @Test
    void aGuestThatNeverBootsIsKilledRetriedOnceAndTheJobDeclinedAsAVmBootFailure() throws Exception {
        executor = new MicroVmExecutor(
                options(new Paused(QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg")), GUEST.kernel())
                        .withBootTimeout(Duration.ofSeconds(1)),
                Clock.systemUTC());
        Recorder r = run(job(spec(64 * MIB, false), List.of("true"), 1, List.of()));
        String reason = r.declined.get(150, TimeUnit.SECONDS);
        assertThat(reason)
                .startsWith("vm_boot_failed: the VM did not boot (qemu-microvm/tcg, 2 attempts)")
                .contains("the guest did not boot within 1 s (console: silent); the guest did not boot within 1 s");
        assertThat(r.started).isNotDone(); // never reported as running: the job goes back to the queue
        assertThat(vms()).isEmpty();
        assertThat(work.resolve("r/microvm/jobs")).isEmptyDirectory();
    }

    @Test
    void aHypervisorThatExitsBeforeTheGuestBootsDeclinesTheJobWithItsError() throws Exception {
        Path notAKernel = Files.writeString(work.resolve("not-a-kernel"), "this is not a kernel image\n");
        executor = new MicroVmExecutor(
                options(QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg"), notAKernel), Clock.systemUTC());
        Recorder r = run(job(spec(64 * MIB, false), List.of("true"), 1, List.of()));
        String reason = r.declined.get(150, TimeUnit.SECONDS);
        assertThat(reason)
                .startsWith("vm_boot_failed: the VM did not boot")
                .contains("the hypervisor exited before the guest booted: ")
                .contains("qemu");
        assertThat(vms()).isEmpty();
    }

    @Test
    void memoryWithinTheSpecIsUsableAndAllocationsAboveItAreKilledAsOutOfMemory() throws Exception {
        // dd allocates its block size: 24 MiB fits a 48 MiB limit, 96 MiB does not (no swap in the guest).
        String script = "dd if=/dev/zero of=/dev/null bs=24M count=1 2>/dev/null && echo within-ok;"
                + " dd if=/dev/zero of=/dev/null bs=96M count=1 2>/dev/null; echo after-over $?";
        ExecutionResult result = result(run(job(spec(48 * MIB, false), List.of("sh", "-c", script), 1, List.of())));
        assertThat(result.kind()).as(result.detail()).isEqualTo(ExecutionResult.Kind.OUT_OF_MEMORY);
        assertThat(result.detail()).isEqualTo("memory limit " + 48 * MIB + " bytes");
        assertThat(result.results().getFirst().stdout())
                .startsWith("within-ok\n")
                .contains("after-over 137");
        assertThat(vms()).isEmpty();
    }

    @Test
    void theVmHasTheSpecsVcpusAndDiskRunsOnTheBenchmarkCpusAndTheWorkloadRunsAsTheImagesUser() throws Exception {
        image = TestImages.busybox(work.resolve("layout-user"), List.of("true"), List.of(), "bench");
        String benchmarkCpus = Runtime.getRuntime().availableProcessors() > 1 ? "1" : "0";
        executor = new MicroVmExecutor(
                options(QemuMicrovm.onThisHost("qemu-system-x86_64", "tcg"), GUEST.kernel())
                        .withBenchmarkCpus(Optional.of(benchmarkCpus)),
                Clock.systemUTC());
        String script = "nproc; id -u; id -g; touch mine && ls -ln mine | tr -s ' ' | cut -d' ' -f3,4; pwd;"
                + " touch /not-mine 2>/dev/null || echo root-only;"
                + " dd if=/dev/zero of=big bs=1M count=80 2>/dev/null || echo disk-full; rm -f big; sleep 2";
        Recorder r = run(job(spec(2, 64 * MIB, false), List.of("sh", "-c", script), 1, List.of()));
        r.started.get(150, TimeUnit.SECONDS);
        List<ProcessHandle> running = vms();
        assertThat(running).hasSize(1);
        String status = Files.readString(
                Path.of("/proc", Long.toString(running.getFirst().pid()), "status"));
        assertThat(status).containsPattern("Cpus_allowed_list:\\s+" + benchmarkCpus + "\n");
        ExecutionResult result = result(r);
        assertThat(result.kind()).as(result.detail()).isEqualTo(ExecutionResult.Kind.EXITED);
        assertThat(result.results().getFirst().stdout())
                .isEqualTo("2\n1000\n1000\n1000 1000\n/work\nroot-only\ndisk-full\n");
        assertThat(result.results().getFirst().exitCode()).isZero();
    }

    @Test
    void reportsItsHypervisorAndAcceleratorAsCapabilities() {
        assertThat(executor.capabilities())
                .isEqualTo(new dev.baton.protocol.model.RunnerCapabilities("microvm", "qemu-microvm", "tcg"));
    }
}
