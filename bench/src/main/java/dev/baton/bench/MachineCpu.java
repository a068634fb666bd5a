package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time spent by every process on the machine, from the first line of /proc/stat (Linux): all
 * fields but idle and iowait, in USER_HZ ticks. The bench uses it to show what a job costs the
 * whole machine, the database server's processes included.
 */
final class MachineCpu {
    /** The kernel's USER_HZ, 100 on every Linux architecture the bench runs on. */
    private static final long TICKS_PER_SECOND = 100;

    private MachineCpu() {}

    /** Busy CPU time of the machine since boot, in nanoseconds, or -1 where /proc/stat is missing. */
    static long busyNanos() {
        try {
            return busyTicks(Files.readAllLines(Path.of("/proc/stat")).getFirst())
                    * (1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Busy ticks of a "cpu  user nice system idle iowait irq softirq steal guest guest_nice" line. */
    static long busyTicks(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (!f[0].equals("cpu")) throw new IllegalArgumentException("not the machine's cpu line: " + cpuLine);
        long busy = 0;
        // guest and guest_nice (fields 9 and 10) are already counted in user and nice
        for (int i = 1; i < Math.min(f.length, 9); i++) {
            if (i == 4 || i == 5) continue; // idle, iowait
            busy += Long.parseLong(f[i]);
        }
        return busy;
    }
}
