package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.model.RunnerCapabilities;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.oci.BlobSource;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each iteration of a job in its own virtual machine ({@link Hypervisor}): the image is
 * pulled and unpacked as for runc, then turned into an ext4 disk image of the spec's disk size
 * ({@code mkfs.ext4 -d}) with a static busybox and the job's script under {@code /.baton}. The
 * guest boots Baton's initramfs ({@link GuestInitramfs}), runs the job chrooted into that disk
 * and hands back stdout and stderr over virtio-serial (live, through Unix sockets) and the exit
 * code and requested files over a third port written to a file ({@link GuestControl}). The VM
 * is the sandbox: the workload runs as the image's user inside it ({@link GuestUserSwitch}), and
 * stopping it kills the VM. Writes to the disk persist from one iteration to the next, as in the
 * runc executor's rootfs.
 *
 * <p>A paired job whose baseline has an image of its own (issue 45) gets a second disk made the
 * same way from that image; its baseline iterations boot it, the candidate's the job's disk.
 */
public final class MicroVmExecutor implements Executor {
    /** Images whose layers this executor's blob cache holds (image affinity, docs/scheduling.md). */
    private final dev.baton.runner.oci.RecentImages held =
            new dev.baton.runner.oci.RecentImages(dev.baton.protocol.message.HeldImages.MAX);

    @Override
    public java.util.Optional<dev.baton.runner.oci.RecentImages> heldImages() {
        return java.util.Optional.of(held);
    }

    private static final Logger log = LoggerFactory.getLogger(MicroVmExecutor.class);
    static final String PREFIX = "baton-vm-";
    /** Guest kernel, initramfs and page cache beside the job's own memory. */
    static final long OVERHEAD_MIB = 160;

    static final long DEFAULT_DISK = 1L << 30;
    static final long MIN_DISK = 16L << 20;
    /** A TCG boot takes 4-7 s here, 15 s on a machine loaded with other builds. */
    static final Duration BOOT_TIMEOUT = Duration.ofSeconds(60);

    static final int BOOT_ATTEMPTS = 2;
    /**
     * The guest kernel's command line. {@code no_timer_check} and a fixed {@code lpj} skip the
     * IO-APIC timer check and the delay-loop calibration (slow under TCG); the TSC rate comes
     * from the hypervisor ({@link QemuMicrovm#timekeeping()}). {@code reboot=t} with QEMU's
     * {@code -no-reboot} makes the guest's final reboot an exit.
     */
    static final String GUEST_CMDLINE = "console=ttyS0 quiet panic=-1 reboot=t no_timer_check lpj=4000000 rdinit=/init";

    /**
     * @param kernel the guest kernel (Debian's {@code /boot/vmlinuz-<version>})
     * @param modules its {@code /lib/modules/<version>}
     * @param busybox a static busybox (busybox-static's {@code /bin/busybox})
     * @param benchmarkCpus host CPUs the hypervisor (all its vCPU threads) is pinned to with
     *                      {@code taskset}, away from the agent's housekeeping CPU
     * @param bootTimeout how long a guest may take to report {@code booted} before it is killed
     */
    public record Options(
            Hypervisor hypervisor,
            Path workDir,
            Architecture arch,
            Path kernel,
            Path modules,
            Path busybox,
            OutputLimits limits,
            Function<ClaimedJob, BlobSource> sources,
            long maxUnpackBytes,
            Optional<String> benchmarkCpus,
            Duration bootTimeout) {
        /** Unpinned, with the default boot timeout. */
        public Options(
                Hypervisor hypervisor,
                Path workDir,
                Architecture arch,
                Path kernel,
                Path modules,
                Path busybox,
                OutputLimits limits,
                Function<ClaimedJob, BlobSource> sources,
                long maxUnpackBytes) {
            this(
                    hypervisor,
                    workDir,
                    arch,
                    kernel,
                    modules,
                    busybox,
                    limits,
                    sources,
                    maxUnpackBytes,
                    Optional.empty(),
                    BOOT_TIMEOUT);
        }

        public Options withBenchmarkCpus(Optional<String> cpus) {
            return new Options(
                    hypervisor,
                    workDir,
                    arch,
                    kernel,
                    modules,
                    busybox,
                    limits,
                    sources,
                    maxUnpackBytes,
                    cpus,
                    bootTimeout);
        }

        public Options withBootTimeout(Duration timeout) {
            return new Options(
                    hypervisor,
                    workDir,
                    arch,
                    kernel,
                    modules,
                    busybox,
                    limits,
                    sources,
                    maxUnpackBytes,
                    benchmarkCpus,
                    timeout);
        }
    }

    private final Options options;
    private final Clock clock;
    private final Path root;
    private final Object initramfsLock = new Object();
    private Path initramfs;
    private GuestUserSwitch userSwitch;

    public MicroVmExecutor(Options options, Clock clock) {
        this.options = options;
        this.clock = clock;
        this.root = options.workDir().resolve("microvm");
        log.info(
                "microvm executor: {} (kernel {}, vCPUs pinned to {})",
                options.hypervisor().describe(),
                options.kernel(),
                options.benchmarkCpus().orElse("any CPU"));
    }

    /** Why the microVM executor cannot run here, if it cannot: a missing tool or guest piece. */
    public static Optional<String> unavailableReason(String qemu, Path kernel, Path modules, Path busybox) {
        if (!Files.isReadable(kernel))
            return Optional.of("no guest kernel at " + kernel + " (apt-get install linux-image-amd64)");
        if (!Files.isRegularFile(modules.resolve("modules.dep"))) return Optional.of("no kernel modules at " + modules);
        if (!Files.isExecutable(busybox))
            return Optional.of("no static busybox at " + busybox + " (apt-get install busybox-static)");
        for (List<String> tool :
                List.of(List.of(qemu, "--version"), List.of("mkfs.ext4", "-V"), List.of("cpio", "--version"))) {
            try {
                Process p = new ProcessBuilder(tool).redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0)
                    return Optional.of(String.join(" ", tool) + " failed");
            } catch (IOException e) {
                return Optional.of(tool.getFirst() + " not found (apt-get install qemu-system-x86 e2fsprogs cpio)");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.of("interrupted");
            }
        }
        return Optional.empty();
    }

    @Override
    public String name() {
        return "microvm";
    }

    /** A second disk from the baseline's image, booted for the baseline iterations. */
    @Override
    public boolean runsBaselineImage() {
        return true;
    }

    /** The hypervisor's version and accelerator, e.g. {@code QEMU emulator version 7.2.15 (tcg)}; asked once. */
    @Override
    public String version() {
        String v = hypervisorVersion;
        if (v == null)
            hypervisorVersion = v =
                    options.hypervisor().version() + " (" + options.hypervisor().accelerator() + ")";
        return v;
    }

    private volatile String hypervisorVersion;

    public Hypervisor hypervisor() {
        return options.hypervisor();
    }

    /** The VM runs pinned to the benchmark CPUs (all of them when none are set); the fingerprint watches these. */
    @Override
    public Optional<String> workloadCpus() {
        return options.benchmarkCpus();
    }

    @Override
    public RunnerCapabilities capabilities() {
        return new RunnerCapabilities(
                name(), options.hypervisor().name(), options.hypervisor().accelerator());
    }

    @Override
    public Execution prepare(ClaimedJob job, ExecutionEvents events) {
        var e = new VmExecution(job, events);
        e.begin();
        return e;
    }

    /**
     * Kills VMs a crashed agent left (found by the {@code -name} marker and this work dir), then
     * removes their files; each killed VM of a job is reported, so the agent reports the job lost.
     */
    @Override
    public List<Leftover> sweep() {
        String marker = root.toString();
        List<Leftover> found = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(h -> {
            String[] args = h.info().arguments().orElse(new String[0]);
            String name = null;
            for (int i = 0; i + 1 < args.length; i++)
                if (args[i].equals("-name") && args[i + 1].startsWith(PREFIX)) name = args[i + 1];
            if (name != null && String.join(" ", args).contains(marker)) {
                log.info("killing leftover VM {} (pid {})", name, h.pid());
                h.destroyForcibly();
                h.onExit()
                        .orTimeout(10, TimeUnit.SECONDS)
                        .exceptionally(t -> null)
                        .join();
                String vm = name;
                Leftover.jobOf(vm, PREFIX)
                        .ifPresent(job -> found.add(new Leftover(job, "VM " + vm + " (pid " + h.pid() + ")")));
            }
        });
        try {
            Trees.deleteTree(root.resolve("jobs"));
        } catch (RuntimeException e) {
            log.warn("cannot remove leftover VM files: {}", e.getMessage());
        }
        return found;
    }

    /** The last non-blank line of a small log file, at most 200 characters. */
    static Optional<String> lastLine(Path file) {
        try {
            if (!Files.exists(file)) return Optional.empty();
            String text;
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
                long from = Math.max(0, f.length() - 4096);
                byte[] tail = new byte[(int) (f.length() - from)];
                f.seek(from);
                f.readFully(tail);
                text = new String(tail, StandardCharsets.UTF_8);
            }
            String[] lines = text.strip().split("\\R");
            String last = lines[lines.length - 1].strip();
            return last.isEmpty() ? Optional.empty() : Optional.of(last.length() > 200 ? last.substring(0, 200) : last);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Found once per executor, at the first job with a non-root user. */
    GuestUserSwitch userSwitch() throws IOException {
        synchronized (initramfsLock) {
            if (userSwitch == null) userSwitch = GuestUserSwitch.of(GuestUserSwitch.CHROOT);
            return userSwitch;
        }
    }

    /** Built once per executor, at the first job: the host's busybox and modules may change between runs. */
    Path initramfs() throws IOException {
        synchronized (initramfsLock) {
            if (initramfs == null) {
                Files.createDirectories(root);
                Path target = root.resolve("initramfs.cpio");
                GuestInitramfs.build(target, options.busybox(), options.modules(), Path.of("cpio"));
                initramfs = target;
            }
            return initramfs;
        }
    }

    private final class VmExecution extends IterativeExecution {
        private final Path jobDir;
        private final Path rootfs;
        private final Path disk;
        /** A paired job's baseline image's disk (issue 45); unused otherwise. */
        private final Path baselineDisk;

        VmExecution(ClaimedJob job, ExecutionEvents events) {
            super(job, events, MicroVmExecutor.this.options.limits(), MicroVmExecutor.this.clock);
            // Short names: Unix socket paths must stay under 108 bytes.
            this.jobDir = root.resolve("jobs").resolve(job.uuid().toString());
            this.rootfs = jobDir.resolve("rootfs");
            this.disk = jobDir.resolve("disk.ext4");
            this.baselineDisk = jobDir.resolve("baseline.ext4");
        }

        @Override
        protected void prepare() throws DeclinedException, IOException {
            if (job.config().digest() == null) {
                throw new DeclinedException(
                        DeclineCode.IMAGE_REQUIRED, "the microvm executor runs images; this job has no image digest");
            }
            if (job.spec() == null) throw new DeclinedException("the job has no spec, so no limits to run it with");
            long diskBytes = job.spec().disk() > 0 ? job.spec().disk() : DEFAULT_DISK;
            if (diskBytes < MIN_DISK)
                throw new DeclinedException(
                        DeclineCode.OTHER, "the spec's disk is below the microvm minimum of " + MIN_DISK + " bytes");
            if (jobDir.resolve("i9/stdout").toString().length() > 100) {
                throw new DeclinedException(
                        DeclineCode.EXECUTOR_ERROR, "work directory path too long for Unix sockets: " + jobDir);
            }
            initramfs(); // a broken guest build declines before the pull
            Trees.deleteTree(jobDir);
            Files.createDirectories(
                    jobDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            PairedConfig paired = job.config().paired();
            boolean ownBaseline = paired != null && paired.baselineImage() != null;
            GuestDisks disks = new GuestDisks(
                    options, held, MicroVmExecutor.this::userSwitch, job, events, rootfs, this::checkStopped);
            disks.build(
                    job.config().digest(),
                    disk,
                    diskBytes,
                    "",
                    ownBaseline ? GuestDisks.Sides.CANDIDATE : GuestDisks.Sides.BOTH);
            if (ownBaseline) {
                // Issue 45: the baseline's own image on a disk of its own, with its own user and script.
                disks.build(
                        paired.baselineImage(), baselineDisk, diskBytes, "baseline image: ", GuestDisks.Sides.BASELINE);
            }
        }

        /** Whether iteration {@code iteration} (from 1) is a baseline side that boots the baseline image's disk. */
        private boolean inBaselineImage(int iteration) {
            PairedConfig paired = job.config().paired();
            return paired != null
                    && paired.baselineImage() != null
                    && paired.side(iteration - 1) == PairedConfig.Side.BASELINE;
        }

        private Path iterationDir(int iteration) {
            return jobDir.resolve("i" + iteration);
        }

        @Override
        protected Process launch(int iteration) throws IOException, DeclinedException {
            Path dir = Files.createDirectories(iterationDir(iteration));
            long memory = job.spec().memory();
            long memoryMib = (memory > 0 ? (memory + (1 << 20) - 1) >> 20 : 512) + OVERHEAD_MIB;
            String cmdline = GUEST_CMDLINE + " baton.iteration=" + iteration + " baton.memory=" + Math.max(0, memory)
                    + " baton.network=" + (job.spec().network() ? 1 : 0);
            var vm = new Hypervisor.Vm(
                    PREFIX + job.uuid() + "-" + iteration,
                    options.kernel(),
                    initramfs(),
                    cmdline,
                    job.spec().cpu(),
                    memoryMib,
                    inBaselineImage(iteration) ? baselineDisk : disk,
                    job.spec().network(),
                    dir.resolve("stdout"),
                    dir.resolve("stderr"),
                    dir.resolve("control"),
                    dir.resolve("console"));
            List<String> command = new ArrayList<>();
            options.benchmarkCpus().ifPresent(cpus -> command.addAll(List.of("taskset", "-c", cpus)));
            command.addAll(options.hypervisor().command(vm));
            // A guest that has not said "booted" in time is killed and booted once more, before the
            // job has run at all; if no attempt boots, the runner (not the job) is at fault.
            List<String> failures = new ArrayList<>();
            for (int attempt = 1; attempt <= BOOT_ATTEMPTS; attempt++) {
                VmProcess p = VmProcess.start(command, vm, dir.resolve("qemu.log"));
                String failure = awaitBoot(p, vm, dir.resolve("qemu.log"));
                if (failure == null) return p;
                failures.add(failure);
                log.warn("job {} iteration {}: boot attempt {} failed: {}", job.uuid(), iteration, attempt, failure);
                p.destroyForcibly();
                try {
                    p.waitFor();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return p;
                }
                Files.deleteIfExists(vm.control());
            }
            throw new DeclinedException(
                    DeclineCode.VM_BOOT_FAILED,
                    "the VM did not boot (" + options.hypervisor().describe() + ", " + BOOT_ATTEMPTS + " attempts): "
                            + String.join("; ", failures));
        }

        /**
         * Null once the guest wrote its first control record, or when waiting is pointless (stop
         * requested, interrupted); else why the boot failed: the hypervisor exited first, or the
         * guest was silent for the boot timeout (the console's last line says where it stopped).
         */
        private String awaitBoot(VmProcess p, Hypervisor.Vm vm, Path qemuLog) throws IOException {
            long deadline = System.nanoTime() + options.bootTimeout().toNanos();
            while (System.nanoTime() < deadline) {
                if (stopRequested()) return null;
                if (Files.exists(vm.control()) && Files.size(vm.control()) > 0) return null;
                if (!p.isAlive()) {
                    return "the hypervisor exited before the guest booted: "
                            + lastLine(qemuLog).orElse(lastLine(vm.console()).orElse("no output"));
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
            return "the guest did not boot within " + options.bootTimeout().toSeconds() + " s (console: "
                    + lastLine(vm.console()).orElse("silent") + ")";
        }

        @Override
        protected void signal(Process process, int iteration, boolean kill) {
            // No graceful stop inside the guest: TERM ends QEMU, which ends the VM and everything in it.
            if (kill) process.destroyForcibly();
            else process.destroy();
        }

        @Override
        protected String outOfMemory(int iteration) {
            return control(iteration).oomKills() > 0
                    ? "memory limit " + job.spec().memory() + " bytes"
                    : null;
        }

        private GuestControl control(int iteration) {
            return GuestControl.read(
                    iterationDir(iteration).resolve("control"), job.config().filePaths(), options.limits());
        }

        @Override
        protected FileCollector.Collected collect(int iteration) {
            GuestControl c = control(iteration);
            return new FileCollector.Collected(c.files(), c.refused());
        }

        @Override
        protected void afterIteration(int iteration) {
            Path dir = iterationDir(iteration);
            try {
                Path console = dir.resolve("console");
                // A VM that ended without reporting an exit (and was not stopped) crashed or hung: keep its console in
                // the log.
                boolean silent = control(iteration).exitCode().isEmpty() && !stopRequested();
                if ((silent || log.isDebugEnabled()) && Files.exists(console)) {
                    String text = Files.readString(console);
                    String tail = text.substring(Math.max(0, text.length() - 4000));
                    if (silent)
                        log.warn(
                                "job {} iteration {}: the VM ended without an exit status; console:\n{}",
                                job.uuid(),
                                iteration,
                                tail);
                    else log.debug("job {} iteration {} console:\n{}", job.uuid(), iteration, tail);
                }
                Trees.deleteTree(dir);
            } catch (IOException | RuntimeException e) {
                log.warn("cannot remove {}", dir, e);
            }
        }

        @Override
        protected void cleanup() {
            try {
                Trees.deleteTree(jobDir);
            } catch (RuntimeException e) {
                log.warn("cannot remove {}", jobDir, e);
            }
        }
    }
}
