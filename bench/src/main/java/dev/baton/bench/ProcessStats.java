package dev.baton.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and memory of this JVM process: OperatingSystemMXBean and /proc/self/status (Linux). */
final class ProcessStats {
    private ProcessStats() {}

    /** CPU time of the whole process (all threads, GC and JIT included), in nanoseconds. */
    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Resident set size in MiB (VmRSS), or -1 where /proc is missing. */
    static double rssMiB() {
        return statusKiB("VmRSS:") / 1024.0;
    }

    /** Peak resident set size in MiB (VmHWM), or -1. */
    static double peakRssMiB() {
        return statusKiB("VmHWM:") / 1024.0;
    }

    static double heapUsedMiB() {
        Runtime r = Runtime.getRuntime();
        return Math.round((r.totalMemory() - r.freeMemory()) / 1024.0 / 1024.0 * 10) / 10.0;
    }

    private static long statusKiB(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field))
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException e) {
            return -1024;
        }
        return -1024;
    }
}
