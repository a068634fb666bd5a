package dev.baton.runner.executor;

import dev.baton.core.microvm.HostTsc;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * QEMU's {@code microvm} machine: no PCI, no firmware beyond qboot, virtio-mmio devices described
 * to the guest by ACPI (the Debian kernel has no {@code virtio_mmio.device=} command-line
 * support). No network device at all unless the job's spec allows network; then user-mode
 * networking (slirp), which never puts the guest in the host's network namespace.
 *
 * @param tscKhz under TCG, the host's TSC rate handed to the guest ({@link HostTsc} says why);
 *               empty when unknown, and unused with KVM (the guest gets kvm-clock)
 */
public record QemuMicrovm(String binary, String accelerator, OptionalLong tscKhz) implements Hypervisor {

    public QemuMicrovm {
        if (!accelerator.equals("kvm") && !accelerator.equals("tcg"))
            throw new IllegalArgumentException("accelerator must be kvm or tcg");
    }

    /** With this machine's TSC rate (read from /proc/cpuinfo when it can be trusted). */
    public static QemuMicrovm onThisHost(String binary, String accelerator) {
        return new QemuMicrovm(binary, accelerator, accelerator.equals("tcg") ? HostTsc.khz() : OptionalLong.empty());
    }

    @Override
    public String name() {
        return "qemu-microvm";
    }

    @Override
    public String version() {
        return java.util.Objects.requireNonNullElse(ToolVersion.of(List.of(binary, "--version")), "unknown");
    }

    @Override
    public String describe() {
        return name() + "/" + accelerator;
    }

    /** The guest's timekeeping arguments under TCG with a known rate ({@link HostTsc#kernelArgs}). */
    String timekeeping() {
        return accelerator.equals("tcg") ? HostTsc.kernelArgs(tscKhz) : "";
    }

    @Override
    public List<String> command(Vm vm) {
        List<String> c = new ArrayList<>(List.of(
                binary,
                "-name",
                vm.name(),
                "-accel",
                accelerator,
                "-M",
                "microvm",
                "-smp",
                Integer.toString(Math.max(1, vm.cpus())),
                "-m",
                vm.memoryMib() + "M",
                "-nodefaults",
                "-no-user-config",
                "-display",
                "none",
                "-no-reboot",
                "-kernel",
                vm.kernel().toString(),
                "-initrd",
                vm.initramfs().toString(),
                "-append",
                vm.cmdline() + timekeeping(),
                "-serial",
                "file:" + vm.console(),
                "-drive",
                "id=root,file=" + vm.disk() + ",format=raw,if=none,cache=unsafe",
                "-device",
                "virtio-blk-device,drive=root",
                "-device",
                "virtio-serial-device",
                "-chardev",
                "socket,id=out,path=" + vm.stdout(),
                "-device",
                "virtserialport,chardev=out,name=baton.stdout",
                "-chardev",
                "socket,id=err,path=" + vm.stderr(),
                "-device",
                "virtserialport,chardev=err,name=baton.stderr",
                "-chardev",
                "file,id=ctl,path=" + vm.control(),
                "-device",
                "virtserialport,chardev=ctl,name=baton.control"));
        // Under TCG the default CPU model: with "-cpu max" the guest's TSC calibration can hang on a loaded host.
        if (accelerator.equals("kvm")) c.addAll(List.of("-cpu", "host"));
        if (vm.network()) {
            c.addAll(List.of("-netdev", "user,id=net", "-device", "virtio-net-device,netdev=net"));
        } else {
            c.addAll(List.of("-nic", "none"));
        }
        return c;
    }
}
