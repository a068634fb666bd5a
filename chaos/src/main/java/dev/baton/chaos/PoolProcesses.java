package dev.baton.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The pool scenario's processes as the kernel has them, not as Baton says: every process of
 * this user whose command line names the pool's directory (a machine's runner: {@code --work-dir
 * POOL/MACHINE}) or whose working directory is under it (the jobs that runner started).
 */
final class PoolProcesses {
    private PoolProcesses() {}

    static List<ProcessHandle> under(Path poolDir) {
        Path real = realPath(poolDir);
        return ProcessHandle.allProcesses()
                .filter(ProcessHandle::isAlive)
                .filter(h -> h.pid() != ProcessHandle.current().pid())
                .filter(h -> namesDir(h, poolDir + "/")
                        || namesDir(h, real + "/")
                        || cwd(h).map(c -> c.startsWith(real)).orElse(false))
                .toList();
    }

    /** The runner process of a machine whose provider id is {@code PID@START[@HOST]}, if it still runs. */
    static Optional<ProcessHandle> runner(String providerId, Path poolDir) {
        String[] parts = providerId.split("@");
        if (parts.length < 2) return Optional.empty();
        long pid;
        long started;
        try {
            pid = Long.parseLong(parts[0]);
            started = Long.parseLong(parts[1]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(h -> h.info().startInstant().map(i -> i.toEpochMilli()).orElse(-1L) == started)
                .filter(h -> namesDir(h, poolDir + "/"));
    }

    /** Whether an argument lies under {@code dir} (which ends with a slash: {@code pool-runner.sh} beside it does not). */
    private static boolean namesDir(ProcessHandle h, String dir) {
        return h.info()
                .arguments()
                .map(args -> List.of(args).stream().anyMatch(a -> a.startsWith(dir)))
                .orElse(false);
    }

    /** As the kernel names it (a process's working directory is always the real path). */
    private static Path realPath(Path dir) {
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            return dir.toAbsolutePath().normalize();
        }
    }

    private static Optional<Path> cwd(ProcessHandle h) {
        try {
            return Optional.of(Files.readSymbolicLink(Path.of("/proc", Long.toString(h.pid()), "cwd")));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** SIGKILL of each, and of what each started: the run's cleanup, after the audit counted them. */
    static void killAll(Path poolDir) {
        for (ProcessHandle h : under(poolDir)) {
            h.descendants().forEach(ProcessHandle::destroyForcibly);
            h.destroyForcibly();
        }
    }
}
