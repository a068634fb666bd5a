package dev.baton.runner.executor;

import dev.baton.core.microvm.Initramfs;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The microVM executor's guest initramfs ({@link Initramfs} builds it): the modules for virtio
 * transport, block, console, net, ext4 and what it needs, and {@link #INIT}. The job's own script
 * lives on the job's disk ({@code /.baton/job.sh}), so one initramfs serves every job.
 */
final class GuestInitramfs {
    /** Modules to load; their dependencies come first. Missing ones are skipped (they may be built in). */
    static final List<String> MODULES =
            List.of("virtio_mmio", "virtio_blk", "virtio_console", "crc32c_generic", "ext4", "virtio_net");

    /**
     * The guest's PID 1. Finds the virtio-serial ports by name, mounts the job's disk, puts the
     * job in a memory cgroup capped at the spec's memory, runs {@code /.baton/job.sh} chrooted
     * into the disk (with a copy of busybox there, so the image needs no shell), reports an OOM
     * kill, unmounts and powers off (a reboot, which {@code -no-reboot} turns into an exit).
     */
    static final String INIT = """
            #!/bin/busybox sh
            /bin/busybox mkdir -p /sbin /usr/bin /usr/sbin /proc /sys /dev /mnt /cg
            /bin/busybox --install -s
            mount -t proc proc /proc
            mount -t sysfs sys /sys
            mount -t devtmpfs dev /dev
            arg() { sed -n "s/.*baton\\.$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
            if [ "$(arg probe)" = 1 ]; then echo baton-probe-ok; reboot -f; fi
            for m in $(cat /modules/order); do insmod /modules/$m 2>/dev/null; done
            port() { for p in /sys/class/virtio-ports/*; do [ "$(cat $p/name 2>/dev/null)" = "$1" ] && echo /dev/${p##*/}; done; }
            i=0
            while [ -z "$(port baton.control)" ] || [ ! -b /dev/vda ]; do
              i=$((i+1)); [ $i -gt 300 ] && { echo "baton: devices did not appear"; reboot -f; }
              sleep 0.1
            done
            exec 3>"$(port baton.control)"
            echo booted >&3
            out=$(port baton.stdout); err=$(port baton.stderr)
            mount -t ext4 /dev/vda /mnt || { echo "error cannot mount the job's disk" >&3; reboot -f; }
            mkdir -p /mnt/dev /mnt/proc /mnt/sys /mnt/tmp
            mount -t devtmpfs dev /mnt/dev; mount -t proc proc /mnt/proc; mount -t sysfs sys /mnt/sys; mount -t tmpfs tmp /mnt/tmp
            ip link set lo up 2>/dev/null
            if [ "$(arg network)" = 1 ]; then
              ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2
              [ -L /mnt/etc/resolv.conf ] || echo "nameserver 10.0.2.3" > /mnt/etc/resolv.conf
            fi
            mem=$(arg memory)
            mount -t cgroup2 none /cg && echo +memory > /cg/cgroup.subtree_control && mkdir /cg/job
            [ -n "$mem" ] && [ "$mem" != 0 ] && echo "$mem" > /cg/job/memory.max && echo 0 > /cg/job/memory.swap.max 2>/dev/null
            sh -c 'echo $$ > /cg/job/cgroup.procs 2>/dev/null; exec chroot /mnt /.baton/busybox sh /.baton/job.sh "$@"' job "$(arg iteration)" "$out" "$err"
            oom=$(sed -n 's/^oom_kill //p' /cg/job/memory.events 2>/dev/null)
            [ "${oom:-0}" -gt 0 ] && echo "oom $oom" >&3
            sync
            umount /mnt/tmp /mnt/sys /mnt/proc /mnt/dev /mnt 2>/dev/null
            reboot -f
            """;

    private GuestInitramfs() {}

    /** Writes the executor's initramfs to {@code target}. */
    static void build(Path target, Path busybox, Path modulesDir, Path cpio) throws IOException {
        Initramfs.build(target, busybox, modulesDir, cpio, INIT, MODULES);
    }
}
