package dev.baton.core.microvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The host's TSC frequency, for TCG guests. Under TCG the guest's TSC counts at the host's TSC
 * rate, and a guest kernel that must measure that rate against the emulated PIT fails now and
 * then on a loaded host (its vCPU thread is descheduled mid-measurement: "tsc: Unable to
 * calibrate against PIT"). It then has no TSC frequency, and its local APIC timer calibration
 * waits for PIT ticks that the microvm machine never delivers at that stage: the boot spins
 * forever. Handing the guest the rate ({@code tsc_early_khz}) skips the measurement.
 *
 * <p>The rate is read from {@code /proc/cpuinfo}'s first {@code cpu MHz}, which is the kernel's
 * calibrated CPU (= TSC) frequency only when no cpufreq driver is loaded (typical of a virtual
 * machine, where TCG is what runs); with cpufreq it is the current clock, which may differ from
 * the TSC, so nothing is returned.
 */
public final class HostTsc {
    private HostTsc() {}

    /** The TSC frequency in kHz, if {@code cpuinfo} gives it reliably (see the class comment). */
    static OptionalLong khz(Path cpuinfo, Path cpufreq) {
        if (Files.exists(cpufreq)) return OptionalLong.empty();
        try {
            for (String line : Files.readAllLines(cpuinfo)) {
                if (!line.startsWith("cpu MHz")) continue;
                int colon = line.indexOf(':');
                if (colon < 0) return OptionalLong.empty();
                double mhz = Double.parseDouble(line.substring(colon + 1).strip());
                return mhz >= 100 && mhz <= 100_000 ? OptionalLong.of(Math.round(mhz * 1000)) : OptionalLong.empty();
            }
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /** This machine's: {@code /proc/cpuinfo}, unless {@code /sys/devices/system/cpu/cpu0/cpufreq} exists. */
    public static OptionalLong khz() {
        return khz(Path.of("/proc/cpuinfo"), Path.of("/sys/devices/system/cpu/cpu0/cpufreq"));
    }

    /**
     * The TCG guest kernel's timekeeping arguments for a known rate: {@code tsc_early_khz} skips
     * the calibration that hangs the boot now and then, and {@code tsc=reliable} keeps the TSC as
     * the guest's clocksource instead of letting the watchdog fall back to 4 ms jiffies when the
     * emulated timers lag. Empty when the rate is unknown.
     */
    public static String kernelArgs(OptionalLong khz) {
        return khz.isEmpty() ? "" : " tsc_early_khz=" + khz.getAsLong() + " tsc=reliable";
    }
}
