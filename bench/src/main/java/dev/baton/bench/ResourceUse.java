package dev.baton.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this JVM used over a phase: CPU (whole process, in cores = CPU seconds per wall second,
 * out of the machine's cores) and garbage-collection pauses, so each figure says whether it was
 * CPU- or GC-bound. In-process phases include the simulated runners' and submitters' share.
 * {@code machineCores} is the CPU of every process on the machine over the same phase (from
 * /proc/stat; -1 where it is missing): with PostgreSQL, its backends run outside this process,
 * so the process figure alone hides what a job costs the database. It is only meaningful on a
 * machine where nothing else runs.
 */
record ResourceUse(double cpuCores, double machineCores, long gcCount, long gcMillis, String loadAverage) {

    /** A phase being measured. */
    static final class Meter {
        private final long wall0 = System.nanoTime();
        private final long cpu0 = ProcessStats.cpuNanos();
        private final long machine0 = MachineCpu.busyNanos();
        private final long[] gc0 = gc();

        ResourceUse stop() {
            double wall = (System.nanoTime() - wall0) / 1e9;
            long[] gc1 = gc();
            long machine1 = MachineCpu.busyNanos();
            double machine =
                    machine0 < 0 || machine1 < 0 ? -1 : Math.round((machine1 - machine0) / 1e9 / wall * 100) / 100.0;
            return new ResourceUse(
                    Math.round((ProcessStats.cpuNanos() - cpu0) / 1e9 / wall * 100) / 100.0,
                    machine,
                    gc1[0] - gc0[0],
                    gc1[1] - gc0[1],
                    currentLoadAverage());
        }
    }

    static Meter start() {
        return new Meter();
    }

    /** Milliseconds of the machine's CPU per job at this rate (every process), or -1 where unknown. */
    double machineMillisPerJob(double jobsPerSecond) {
        return machineCores < 0 || jobsPerSecond <= 0
                ? -1
                : Math.round(machineCores / jobsPerSecond * 1000 * 100) / 100.0;
    }

    private static long[] gc() {
        long count = 0, millis = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, b.getCollectionCount());
            millis += Math.max(0, b.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    /** The machine's 1-, 5- and 15-minute load averages (other processes included). */
    static String currentLoadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
