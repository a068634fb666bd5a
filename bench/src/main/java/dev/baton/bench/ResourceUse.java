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
 */
record ResourceUse(double cpuCores, long gcCount, long gcMillis, String loadAverage) {

    /** A phase being measured. */
    static final class Meter {
        private final long wall0 = System.nanoTime();
        private final long cpu0 = ProcessStats.cpuNanos();
        private final long[] gc0 = gc();

        ResourceUse stop() {
            double wall = (System.nanoTime() - wall0) / 1e9;
            long[] gc1 = gc();
            return new ResourceUse(Math.round((ProcessStats.cpuNanos() - cpu0) / 1e9 / wall * 100) / 100.0, gc1[0] - gc0[0], gc1[1] - gc0[1], currentLoadAverage());
        }
    }

    static Meter start() {
        return new Meter();
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
