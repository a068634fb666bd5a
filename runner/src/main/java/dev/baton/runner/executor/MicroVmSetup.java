package dev.baton.runner.executor;

import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.oci.BlobSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Builds the microVM executor for {@code baton runner up --executor microvm}: finds the guest
 * kernel (or takes the configured one), checks the tools, and picks the accelerator — KVM only
 * when a probe guest really boots with it, else TCG — saying which and why.
 */
public final class MicroVmSetup {
    public static final String QEMU = "qemu-system-x86_64";
    public static final Path BUSYBOX = Path.of("/bin/busybox");
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(20);

    private MicroVmSetup() {}

    /**
     * @param accel {@code auto}, {@code kvm} or {@code tcg}
     * @param benchmarkCpus host CPUs the VMs run on (QEMU under {@code taskset})
     * @throws IllegalStateException when the executor cannot run here, with what to install
     */
    public static MicroVmExecutor create(Path workDir, Architecture arch, Optional<Path> kernelOption, String accel,
                                         Optional<String> benchmarkCpus, Function<ClaimedJob, BlobSource> sources, Consumer<String> say) {
        if (arch != Architecture.X86_64) throw new IllegalStateException("the microvm executor supports x86_64 hosts only");
        Path kernel;
        try {
            kernel = kernelOption.or(() -> {
                try {
                    return MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).orElseThrow(() -> new IllegalStateException("no guest kernel: apt-get install linux-image-amd64, or pass --vm-kernel"));
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("cannot look for a guest kernel: " + e.getCause().getMessage());
        }
        Path modules = MicroVmKernels.modulesFor(kernel, Path.of("/lib/modules"));
        MicroVmExecutor.unavailableReason(QEMU, kernel, modules, BUSYBOX).ifPresent(reason -> {
            throw new IllegalStateException("--executor microvm: " + reason);
        });
        MicroVmExecutor.Probe probe = switch (accel) {
            case "tcg" -> new MicroVmExecutor.Probe("tcg", "--vm-accel tcg");
            case "kvm" -> new MicroVmExecutor.Probe("kvm", "--vm-accel kvm");
            case "auto" -> MicroVmExecutor.probeAccelerator(QEMU, kernel, modules, BUSYBOX, workDir, PROBE_TIMEOUT);
            default -> throw new IllegalStateException("--vm-accel must be auto, kvm or tcg, got '" + accel + "'");
        };
        QemuMicrovm qemu = QemuMicrovm.onThisHost(QEMU, probe.accelerator());
        String clock = !probe.accelerator().equals("tcg") ? ""
                : qemu.tscKhz().isPresent() ? ", guest TSC " + qemu.tscKhz().getAsLong() + " kHz (the host's)"
                : ", guest TSC rate unknown (the guest calibrates it; a boot may hang and is retried)";
        say.accept("microvm executor: QEMU microvm with " + probe.accelerator() + " (" + probe.reason() + "), kernel " + kernel + clock
                + ", vCPUs on CPUs " + benchmarkCpus.orElse("any"));
        return new MicroVmExecutor(new MicroVmExecutor.Options(qemu, workDir, arch, kernel, modules,
                BUSYBOX, OutputLimits.DEFAULT, sources, Long.MAX_VALUE).withBenchmarkCpus(benchmarkCpus), Clock.systemUTC());
    }
}
