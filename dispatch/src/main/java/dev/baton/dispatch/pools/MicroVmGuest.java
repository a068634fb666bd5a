package dev.baton.dispatch.pools;

import java.util.List;

/**
 * The {@code microvm} provider's guest (issue 43): what its initramfs holds and what its PID 1
 * does. The guest sees the host's root file system read-only over 9p and runs the host's own
 * {@code baton} (and Java) in it, chrooted, so nothing is copied per machine; the machine's
 * directory is the one writable share, mounted at its host path: the runner's work directory,
 * its log, and the one-time key, which reaches the guest in a file there and never on a command
 * line. The network is QEMU's user mode (slirp): the host's loopback is {@code 10.0.2.2}.
 */
final class MicroVmGuest {
    private MicroVmGuest() {}

    /** virtio over MMIO (the microvm machine has no PCI), 9p for the shares, and the network card. */
    static final List<String> MODULES = List.of("virtio_mmio", "9pnet_virtio", "9p", "virtio_net");

    /** The kernel's command line; the machine's directory is added as {@code baton.dir=}. */
    static final String CMDLINE = "console=ttyS0 quiet panic=-1 reboot=t no_timer_check lpj=4000000 rdinit=/init";

    /**
     * PID 1: mounts the host's root ({@code host}) read-only at {@code /host}, gives it fresh
     * {@code /tmp}, {@code /dev}, {@code /proc}, {@code /sys}, {@code /run}, mounts the machine's
     * directory ({@code machine}) over its own path in it (after {@code /tmp}, as it may be under
     * it), brings the network up, runs
     * {@code DIR/boot.sh} (written by the provider) chrooted, and powers off when the runner
     * leaves after its one job (a reboot, which QEMU's {@code -no-reboot} turns into an exit).
     */
    static final String INIT = """
            #!/bin/busybox sh
            /bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /proc /sys /dev /host
            /bin/busybox --install -s
            mount -t proc proc /proc
            mount -t sysfs sys /sys
            mount -t devtmpfs dev /dev
            for m in $(cat /modules/order); do insmod /modules/$m 2>/dev/null; done
            dir=$(sed -n 's/.*baton\\.dir=\\([^ ]*\\).*/\\1/p' /proc/cmdline)
            fail() { echo "baton-guest: $*"; reboot -f; }
            mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 host /host || fail "cannot mount the host's root"
            mount -t tmpfs tmp /host/tmp; mount -t tmpfs run /host/run
            mount -t devtmpfs dev /host/dev; mount -t proc proc /host/proc; mount -t sysfs sys /host/sys
            mkdir -p /host$dir 2>/dev/null
            mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 machine /host$dir || fail "cannot mount $dir"
            ip link set lo up
            ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2 || fail "no network"
            echo "baton-guest: booted"
            chroot /host /bin/sh "$dir/boot.sh" > /host$dir/agent.log 2>&1
            echo "baton-guest: the runner exited with $?"
            sync
            umount /host$dir 2>/dev/null
            reboot -f
            """;
}
