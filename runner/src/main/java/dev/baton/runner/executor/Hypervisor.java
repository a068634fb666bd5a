package dev.baton.runner.executor;

import java.nio.file.Path;

/**
 * Boots one virtual machine for one iteration of a job. The microVM executor only needs a
 * command line that boots {@link Vm} and exits when the guest powers off; QEMU's {@code microvm}
 * machine is the one implementation ({@link QemuMicrovm}), a Firecracker one would fit the same
 * shape.
 */
public interface Hypervisor {
    /** The hypervisor, as the runner's capabilities name it: {@code qemu-microvm}. */
    String name();

    /** For logs, e.g. {@code qemu-microvm/tcg}. */
    String describe();

    /** The hypervisor's own version line, for the machine fingerprint. */
    String version();

    /** The accelerator in use: {@code kvm} or {@code tcg}. */
    String accelerator();

    /** The command that boots {@code vm} in the foreground; it exits when the guest powers off or is killed. */
    java.util.List<String> command(Vm vm);

    /**
     * One VM. The guest's stdout and stderr leave through virtio-serial ports named
     * {@code baton.stdout} and {@code baton.stderr} to the host's Unix sockets {@code stdout} and
     * {@code stderr} (the host listens, the hypervisor connects); the port {@code baton.control}
     * goes to the file {@code control}; the kernel console to {@code console}.
     *
     * @param name a marker in the command line, so that leftovers can be found and killed at start-up
     */
    record Vm(
            String name,
            Path kernel,
            Path initramfs,
            String cmdline,
            int cpus,
            long memoryMib,
            Path disk,
            boolean network,
            Path stdout,
            Path stderr,
            Path control,
            Path console) {}
}
