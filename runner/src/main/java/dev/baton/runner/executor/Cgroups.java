package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds a runc container's memory cgroup and reads its OOM-kill count. runc (with the cgroupfs
 * driver and no explicit cgroupsPath) creates the container's cgroup under the cgroup of the
 * process that runs it — our child, so ours — named by the container id.
 */
final class Cgroups {
    private static final Path ROOT = Path.of("/sys/fs/cgroup");

    private Cgroups() {}

    static Optional<Path> memoryDir(String containerId) {
        try {
            String unified = null;
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] f = line.split(":", 3);
                if (f.length < 3) continue;
                for (String controller : f[1].split(",")) {
                    if (controller.equals("memory")) return existing(ROOT.resolve("memory").resolve(rel(f[2])).resolve(containerId));
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
                    if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring(9).strip());
                }
            } catch (IOException | NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }
}
