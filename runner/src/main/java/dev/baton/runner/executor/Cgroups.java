package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a runc container's memory cgroup and reads its OOM-kill count. runc (with the cgroupfs
 * driver and no explicit cgroupsPath) creates the container's cgroup under the cgroup of the
 * process that runs it — our child, so ours — named by the container id.
 *
 * <p>Also job cgroups for the process executor: a cgroup v2 directory of the job's own, created
 * under the agent's cgroup where the runner may create one. Unlike a process group, a job cannot
 * leave it (setsid, double fork), so killing it kills everything the job started.
 */
final class Cgroups {
    private static final Logger log = LoggerFactory.getLogger(Cgroups.class);
    private static final Path ROOT = Path.of("/sys/fs/cgroup");

    private Cgroups() {}

    static Optional<Path> memoryDir(String containerId) {
        try {
            String unified = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] f = line.split(":", 3);
                if (f.length < 3) continue;
                for (String controller : f[1].split(",")) {
                    if (controller.equals("memory"))
                        return existing(
                                ROOT.resolve("memory").resolve(rel(f[2])).resolve(containerId));
                }
                if (f[0].equals("0") && f[1].isEmpty()) unified = f[2];
            }
            if (unified != null && Files.exists(ROOT.resolve("cgroup.controllers"))) {
                return existing(ROOT.resolve(rel(unified)).resolve(containerId));
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * The agent's own cgroup v2 directory when this process may create cgroups in it (probed by
     * creating and removing one), else empty: not Linux, no cgroup2 mount, or not allowed.
     */
    static Optional<Path> jobParent() {
        try {
            Path mount = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 2 && f[2].equals("cgroup2")) {
                    mount = Path.of(f[1]);
                    break;
                }
            }
            if (mount == null) return Optional.empty();
            String own = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (line.startsWith("0::")) own = line.substring(3);
            }
            if (own == null) return Optional.empty();
            Path parent = mount.resolve(rel(own));
            Path probe = parent.resolve("baton-probe-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
            Files.createDirectory(probe);
            boolean usable = Files.isWritable(probe.resolve("cgroup.procs"));
            Files.delete(probe);
            return usable ? Optional.of(parent) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Living processes in the cgroup (empty when it is gone). */
    static List<Long> procs(Path cgroup) {
        List<Long> out = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(cgroup.resolve("cgroup.procs"))) {
                if (!line.isBlank()) out.add(Long.parseLong(line.strip()));
            }
        } catch (IOException | NumberFormatException e) {
            return out;
        }
        return out;
    }

    /**
     * SIGKILLs every process in the cgroup ({@code cgroup.kill} where the kernel has it, else
     * one by one until it is empty) and removes it.
     *
     * @return how many processes it held
     */
    static int killAndRemove(Path cgroup) {
        if (!Files.isDirectory(cgroup)) return 0;
        int found = procs(cgroup).size();
        Path kill = cgroup.resolve("cgroup.kill");
        for (int round = 0; round < 200; round++) {
            List<Long> procs = procs(cgroup);
            if (procs.isEmpty()) break;
            try {
                if (Files.exists(kill)) Files.writeString(kill, "1");
                else procs.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            } catch (IOException e) {
                procs.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            Files.deleteIfExists(cgroup); // rmdir; only empty cgroups can go
        } catch (IOException e) {
            log.warn("cannot remove cgroup {}: {}", cgroup, e.getMessage());
        }
        return found;
    }

    private static String rel(String path) {
        return path.replaceFirst("^/+", "");
    }

    private static Optional<Path> existing(Path p) {
        return Files.isDirectory(p) ? Optional.of(p) : Optional.empty();
    }

    /** oom_kill from memory.oom_control (v1) or memory.events (v2); 0 when unknown. */
    static long oomKills(Path dir) {
        for (String file : new String[] {"memory.oom_control", "memory.events"}) {
            Path p = dir.resolve(file);
            if (!Files.isRegularFile(p)) continue;
            try {
                for (String line : Files.readAllLines(p)) {
                    if (line.startsWith("oom_kill "))
                        return Long.parseLong(line.substring(9).strip());
                }
            } catch (IOException | NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }
}
