package dev.baton.runner.executor;

import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.oci.BlobSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the microVM executor for {@code baton runner up --executor microvm}: finds the guest
 * kernel (or takes the configured one), checks the tools, and picks the accelerator — KVM only
 * when a probe guest really boots with it, else TCG — saying which and why.
 */
public final class MicroVmSetup {
    private static final Logger log = LoggerFactory.getLogger(MicroVmSetup.class);
    public static final String QEMU = "qemu-system-x86_64";
    public static final Path BUSYBOX = Path.of("/bin/busybox");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(20);

    private MicroVmSetup() {}

    /**
     * @param accel {@code auto}, {@code kvm} or {@code tcg}
     * @param benchmarkCpus host CPUs the VMs run on (QEMU under {@code taskset})
     * @throws IllegalStateException when the executor cannot run here, with what to install
     */
    public static MicroVmExecutor create(
            Path workDir,
            Architecture arch,
            Optional<Path> kernelOption,
            String accel,
            Optional<String> benchmarkCpus,
            Function<ClaimedJob, BlobSource> sources,
            Consumer<String> say) {
        if (arch != Architecture.X86_64)
            throw new IllegalStateException("the microvm executor supports x86_64 hosts only");
        Path kernel;
        try {
            kernel = kernelOption
                    .or(() -> {
                        try {
                            return MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .orElseThrow(() -> new IllegalStateException(
                            "no guest kernel: apt-get install linux-image-amd64, or pass --vm-kernel"));
        } catch (UncheckedIOException e) {
            throw new IllegalStateException(
                    "cannot look for a guest kernel: " + e.getCause().getMessage());
        }
        Path modules = MicroVmKernels.modulesFor(kernel, Path.of("/lib/modules"));
        MicroVmExecutor.unavailableReason(QEMU, kernel, modules, BUSYBOX).ifPresent(reason -> {
            throw new IllegalStateException("--executor microvm: " + reason);
        });
        Probe probe = switch (accel) {
            case "tcg" -> new Probe("tcg", "--vm-accel tcg");
            case "kvm" -> new Probe("kvm", "--vm-accel kvm");
            case "auto" -> probeAccelerator(QEMU, kernel, modules, BUSYBOX, workDir, PROBE_TIMEOUT);
            default -> throw new IllegalStateException("--vm-accel must be auto, kvm or tcg, got '" + accel + "'");
        };
        QemuMicrovm qemu = QemuMicrovm.onThisHost(QEMU, probe.accelerator());
        String clock = !probe.accelerator().equals("tcg")
                ? ""
                : qemu.tscKhz().isPresent()
                        ? ", guest TSC " + qemu.tscKhz().getAsLong() + " kHz (the host's)"
                        : ", guest TSC rate unknown (the guest calibrates it; a boot may hang and is retried)";
        say.accept("microvm executor: QEMU microvm with " + probe.accelerator() + " (" + probe.reason() + "), kernel "
                + kernel + clock + ", vCPUs on CPUs " + benchmarkCpus.orElse("any"));
        return new MicroVmExecutor(
                new MicroVmExecutor.Options(
                                qemu,
                                workDir,
                                arch,
                                kernel,
                                modules,
                                BUSYBOX,
                                OutputLimits.DEFAULT,
                                sources,
                                Long.MAX_VALUE)
                        .withBenchmarkCpus(benchmarkCpus),
                Clock.systemUTC());
    }

    /**
     * KVM if it really boots a guest here, else TCG. An openable {@code /dev/kvm} is not enough
     * (nested or restricted KVM can hang at the first instruction), so the probe boots the
     * guest kernel with {@code baton.probe=1}, whose init powers off at once, and waits
     * {@code timeout} for it. Returns the accelerator and why.
     */
    private static Probe probeAccelerator(
            String qemu, Path kernel, Path modules, Path busybox, Path workDir, Duration timeout) {
        Path kvm = Path.of("/dev/kvm");
        if (!Files.isReadable(kvm) || !Files.isWritable(kvm)) return new Probe("tcg", "/dev/kvm is not accessible");
        Path dir = workDir.resolve("microvm").resolve("probe");
        try {
            Trees.deleteTree(dir);
            Files.createDirectories(dir);
            Path initrd = dir.resolve("initramfs.cpio");
            GuestInitramfs.build(initrd, busybox, modules, Path.of("cpio"));
            Path console = dir.resolve("console");
            Process p = new ProcessBuilder(
                            qemu,
                            "-name",
                            MicroVmExecutor.PREFIX + "probe",
                            "-accel",
                            "kvm",
                            "-M",
                            "microvm",
                            "-cpu",
                            "host",
                            "-m",
                            "128M",
                            "-nodefaults",
                            "-no-user-config",
                            "-display",
                            "none",
                            "-no-reboot",
                            "-kernel",
                            kernel.toString(),
                            "-initrd",
                            initrd.toString(),
                            "-append",
                            MicroVmExecutor.GUEST_CMDLINE + " baton.probe=1",
                            "-serial",
                            "file:" + console)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("qemu.log").toFile())
                    .start();
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                    return new Probe("tcg", "a KVM guest did not boot within " + timeout.toSeconds() + " s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                return new Probe("tcg", "interrupted");
            }
            if (Files.exists(console) && Files.readString(console).contains("baton-probe-ok"))
                return new Probe("kvm", "a KVM guest booted");
            // One line for the start-up message: QEMU's error, and an assertion after it, come on several.
            String error = Files.readString(dir.resolve("qemu.log")).strip().replaceAll("\\s*\\R\\s*", " / ");
            return new Probe(
                    "tcg", "a KVM guest failed: " + (error.length() > 300 ? error.substring(0, 300) + "…" : error));
        } catch (IOException e) {
            return new Probe("tcg", "KVM probe failed: " + e.getMessage());
        } finally {
            try {
                Trees.deleteTree(dir);
            } catch (RuntimeException e) {
                log.warn("cannot remove {}", dir, e);
            }
        }
    }

    /** The accelerator chosen at start-up and why (logged, and reported by {@code baton runner up}). */
    private record Probe(String accelerator, String reason) {}
}
