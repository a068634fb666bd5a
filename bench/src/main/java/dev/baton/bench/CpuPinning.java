package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which CPUs this process's threads may run on, through {@code taskset} (util-linux) and
 * /proc/self (Linux). {@link #pinProcess} pins every thread ({@code taskset -a -p}); threads
 * started later inherit their creator's set, so after it the whole process stays there. The
 * JVM sizes some pools from the CPUs it may use when they are created (GC and JIT threads at
 * start, the virtual-thread scheduler at first use; {@link Runtime#availableProcessors()} follows
 * the current set), so a pinned JVM is not the same as a JVM started on fewer cores.
 */
final class CpuPinning {
    private CpuPinning() {}

    /** Why the process cannot be pinned here (no taskset, no /proc, fewer than two CPUs), or null when it can. */
    static String unavailable() {
        List<Integer> cpus = allowedCpus();
        if (cpus.isEmpty()) return "no /proc/self/status (not Linux?)";
        if (cpus.size() < 2) return "this process may use only CPU " + format(cpus);
        try {
            Process p = new ProcessBuilder("taskset", "-V")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return "taskset -V failed";
        } catch (IOException e) {
            return "no taskset (util-linux): " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        return null;
    }

    /** The CPUs the main thread may run on (Cpus_allowed_list), or empty where unknown. */
    static List<Integer> allowedCpus() {
        return allowedCpus(Path.of("/proc/self/status"));
    }

    /** The Cpus_allowed_list of a /proc status file (a process's or a thread's), or empty. */
    static List<Integer> allowedCpus(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("Cpus_allowed_list:"))
                    return parseList(line.substring("Cpus_allowed_list:".length()));
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return List.of();
    }

    /** A kernel CPU list ("0-2,5") as CPU numbers in ascending order. */
    static List<Integer> parseList(String list) {
        TreeSet<Integer> cpus = new TreeSet<>();
        for (String part : list.trim().split(",")) {
            if (part.isBlank()) continue;
            String[] range = part.trim().split("-");
            int from = Integer.parseInt(range[0]);
            int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
            for (int c = from; c <= to; c++) cpus.add(c);
        }
        return List.copyOf(cpus);
    }

    /** CPU numbers as a list taskset takes ("0,1"). */
    static String format(List<Integer> cpus) {
        return cpus.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** The command prefix that starts a process on these CPUs. */
    static List<String> command(List<Integer> cpus) {
        return List.of("taskset", "-c", format(cpus));
    }

    /**
     * Pins every thread of this process to {@code cpus}, and checks that every thread is there
     * (a thread started by an unpinned one while taskset walked the list would escape it: then
     * again, at most three times). Returns the number of threads pinned.
     */
    static int pinProcess(List<Integer> cpus) throws IOException, InterruptedException {
        String pid = String.valueOf(ProcessHandle.current().pid());
        List<String> escaped = List.of();
        for (int attempt = 0; attempt < 3; attempt++) {
            Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", format(cpus), pid)
                    .redirectErrorStream(true)
                    .start();
            String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS))
                throw new IOException("taskset -a -p -c " + format(cpus) + " " + pid + " did not finish: " + output);
            // A non-zero exit is most often a thread that ended while taskset walked the list
            // (no such process): what counts is whether every live thread is pinned, checked below.
            List<Path> threads = threads();
            escaped = new ArrayList<>();
            for (Path t : threads) {
                List<Integer> allowed = allowedCpus(t.resolve("status"));
                if (!allowed.isEmpty() && !allowed.equals(cpus)) escaped.add(t.getFileName() + ":" + format(allowed));
            }
            if (escaped.isEmpty()) return threads.size();
        }
        throw new IOException("threads not pinned to " + format(cpus) + " after three tries: " + escaped);
    }

    private static List<Path> threads() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.toList();
        }
    }
}
