package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Builds the guest's initramfs from installed packages, never from downloads: busybox-static's
 * {@code /bin/busybox} as {@code /bin/busybox}, the kernel modules the Debian kernel keeps as
 * modules (virtio transport, block, console, net; ext4 and what it needs) copied from the
 * kernel's {@code /lib/modules/<version>} in dependency order (read from its {@code modules.dep}),
 * and {@link #INIT}. Packed with {@code cpio -o -H newc}. The job's own script lives on the job's
 * disk ({@code /.baton/job.sh}), so one initramfs serves every job.
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

    /** Writes the initramfs to {@code target}. */
    static void build(Path target, Path busybox, Path modulesDir, Path cpio) throws IOException {
        Path staging = target.resolveSibling(target.getFileName() + ".d");
        Trees.deleteTree(staging);
        Files.createDirectories(staging.resolve("bin"));
        Files.createDirectories(staging.resolve("modules"));
        Files.copy(busybox, staging.resolve("bin/busybox"), StandardCopyOption.REPLACE_EXISTING);
        staging.resolve("bin/busybox").toFile().setExecutable(true, false);
        Path init = staging.resolve("init");
        Files.writeString(init, INIT, StandardCharsets.UTF_8);
        init.toFile().setExecutable(true, false);
        List<String> order = new ArrayList<>();
        for (Path module : loadOrder(modulesDir, MODULES)) {
            Files.copy(
                    modulesDir.resolve(module),
                    staging.resolve("modules").resolve(module.getFileName()),
                    StandardCopyOption.REPLACE_EXISTING);
            order.add(module.getFileName().toString());
        }
        Files.write(staging.resolve("modules/order"), order);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Process p = new ProcessBuilder(
                        "sh",
                        "-c",
                        "cd \"$1\" && find . | \"$2\" -o -H newc --quiet > \"$3\"",
                        "sh",
                        staging.toString(),
                        cpio.toString(),
                        tmp.toString())
                .redirectErrorStream(true)
                .start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0)
                throw new IOException("cpio failed: " + out.strip());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Trees.deleteTree(staging);
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Module files (relative to {@code modulesDir}) in an order insmod accepts: each module after
     * its dependencies. modules.dep lists a module's full dependency closure, deepest last.
     */
    static List<Path> loadOrder(Path modulesDir, List<String> wanted) throws IOException {
        Map<String, String> pathByName = new HashMap<>();
        Map<String, List<String>> deps = new HashMap<>();
        for (String line : Files.readAllLines(modulesDir.resolve("modules.dep"))) {
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String module = line.substring(0, colon);
            String name = moduleName(module);
            pathByName.put(name, module);
            List<String> d = new ArrayList<>();
            for (String dep : line.substring(colon + 1).trim().split("\\s+")) if (!dep.isEmpty()) d.add(dep);
            deps.put(module, d);
        }
        Set<String> ordered = new LinkedHashSet<>();
        for (String name : wanted) {
            String module = pathByName.get(name);
            if (module == null) continue; // built into the kernel
            visit(module, deps, ordered, new java.util.HashSet<>());
        }
        return ordered.stream().map(Path::of).toList();
    }

    private static void visit(
            String module, Map<String, List<String>> deps, Set<String> ordered, Set<String> visiting) {
        if (ordered.contains(module) || !visiting.add(module)) return;
        for (String dep : deps.getOrDefault(module, List.of())) visit(dep, deps, ordered, visiting);
        ordered.add(module);
    }

    private static String moduleName(String path) {
        String file = path.substring(path.lastIndexOf('/') + 1);
        int dot = file.indexOf(".ko");
        return (dot < 0 ? file : file.substring(0, dot)).replace('-', '_');
    }
}
