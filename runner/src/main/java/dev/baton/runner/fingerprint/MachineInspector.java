package dev.baton.runner.fingerprint;

import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads a {@link MachineFingerprint} from /proc and /sys. What a file does not say (no cpufreq in
 * a VM, no SMT control on an old kernel) is left unknown, never guessed; the warnings name what
 * adds noise, and "the frequency policy cannot be read" is one of them, because a clean
 * fingerprint must be one the runner can vouch for.
 *
 * <p>The root is a parameter so that a test can point it at a tree written in the kernel's file
 * formats; the agent always reads {@code /}.
 */
public final class MachineInspector {
    /** How long the job's CPUs are watched for other work before the job starts. */
    public static final Duration DEFAULT_SAMPLE = Duration.ofMillis(100);
    /** Busier than this (share of the sample) and the job's CPUs are not the job's own. */
    public static final double BUSY_THRESHOLD = 0.10;

    /** Waits out the sample window between the two reads of /proc/stat (a test may change the tree instead). */
    @FunctionalInterface
    public interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    private final Path root;
    private final Optional<CpuList> jobCpus;
    private final Duration sample;
    private final Clock clock;
    private final Pause pause;

    /**
     * @param jobCpus the CPUs the executor gives jobs ({@code --benchmark-cpus}); empty: all online CPUs
     */
    public MachineInspector(Path root, Optional<CpuList> jobCpus, Duration sample, Clock clock, Pause pause) {
        this.root = root;
        this.jobCpus = jobCpus;
        this.sample = sample;
        this.clock = clock;
        this.pause = pause;
    }

    /** The real machine, sampling for {@link #DEFAULT_SAMPLE}. */
    public static MachineInspector ofHost(Optional<CpuList> jobCpus, Clock clock) {
        return new MachineInspector(Path.of("/"), jobCpus, DEFAULT_SAMPLE, clock, d -> Thread.sleep(d));
    }

    /** The executor as the fingerprint names it. */
    public record ExecutorInfo(String name, String version, String runnerVersion) {}

    public MachineFingerprint read(ExecutorInfo executor) throws InterruptedException {
        var taken = clock.instant();
        Optional<CpuList> online = text("sys/devices/system/cpu/online").flatMap(MachineInspector::cpuList);
        CpuList job = jobCpus.or(() -> online).orElse(null);
        Map<Integer, long[]> before = job == null ? Map.of() : cpuTimes();
        List<MachineFingerprint.Warning> warnings = new ArrayList<>();

        String governor = job == null ? null : governor(job, warnings);
        Boolean turbo = turbo();
        if (Boolean.TRUE.equals(turbo)) warnings.add(warning(NoiseCode.TURBO, "turbo/boost is on"));
        String smt = text("sys/devices/system/cpu/smt/control").orElse(null);
        if (smtActive(job)) warnings.add(warning(NoiseCode.SMT, "SMT is on: sibling threads share the job's cores"));
        Map<String, Long> meminfo = meminfo();
        Long swap = meminfo.get("SwapTotal");
        if (swap != null && swap > 0)
            warnings.add(warning(
                    NoiseCode.SWAP, "swap is on (" + swap / (1024 * 1024) + " MiB): job memory may be paged out"));
        List<Double> load = loadAverage();

        Double busy = null;
        if (job != null && !before.isEmpty()) {
            pause.pause(sample);
            busy = busy(job, before, cpuTimes(), warnings);
        }
        return new MachineFingerprint(
                taken,
                cpuModel(),
                online.map(CpuList::size).orElse(null),
                job == null ? null : cut(job.toString()),
                governor,
                turbo,
                smt == null ? null : cut(smt),
                text("proc/sys/kernel/osrelease").map(MachineInspector::cut).orElse(null),
                meminfo.get("MemTotal"),
                meminfo.get("MemAvailable"),
                swap,
                load,
                busy,
                cut(executor.name()),
                executor.version() == null ? null : cut(executor.version()),
                executor.runnerVersion() == null ? null : cut(executor.runnerVersion()),
                warnings);
    }

    // ---- what each file says -----------------------------------------------------------------

    private String cpuModel() {
        for (String line : lines("proc/cpuinfo")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().equals("model name"))
                return cut(line.substring(colon + 1).strip());
        }
        return null;
    }

    /** The governors of the job's CPUs, or null (and a warning) when any of them has no cpufreq. */
    private String governor(CpuList job, List<MachineFingerprint.Warning> warnings) {
        Set<String> governors = new LinkedHashSet<>();
        List<Integer> without = new ArrayList<>();
        for (int cpu : job.cpus()) {
            Optional<String> g = text("sys/devices/system/cpu/cpu" + cpu + "/cpufreq/scaling_governor");
            if (g.isPresent()) governors.add(g.get());
            else without.add(cpu);
        }
        if (!without.isEmpty()) {
            warnings.add(warning(
                    NoiseCode.FREQUENCY_UNKNOWN,
                    "no cpufreq on CPU " + cpus(without)
                            + ": the frequency governor cannot be read (a VM or no cpufreq driver)"));
            return null;
        }
        List<String> noisy =
                governors.stream().filter(g -> !g.equals("performance")).toList();
        if (!noisy.isEmpty())
            warnings.add(warning(
                    NoiseCode.GOVERNOR,
                    "frequency governor " + String.join(", ", noisy)
                            + " (not performance): the clock changes with the load"));
        return cut(String.join(",", governors));
    }

    /** intel_pstate says no_turbo; acpi-cpufreq and amd-pstate say boost; neither: unknown. */
    private Boolean turbo() {
        Optional<String> noTurbo = text("sys/devices/system/cpu/intel_pstate/no_turbo");
        if (noTurbo.isPresent()) return noTurbo.get().equals("0");
        return text("sys/devices/system/cpu/cpufreq/boost")
                .map(b -> b.equals("1"))
                .orElse(null);
    }

    /** The kernel's SMT switch, or where it is absent, a job CPU whose core has more than one thread. */
    private boolean smtActive(CpuList job) {
        Optional<String> active = text("sys/devices/system/cpu/smt/active");
        if (active.isPresent()) return active.get().equals("1");
        if (job == null) return false;
        for (int cpu : job.cpus()) {
            Optional<CpuList> siblings = text("sys/devices/system/cpu/cpu" + cpu + "/topology/thread_siblings_list")
                    .flatMap(MachineInspector::cpuList);
            if (siblings.isPresent() && siblings.get().size() > 1) return true;
        }
        return false;
    }

    /** /proc/meminfo's kB values as bytes. */
    private Map<String, Long> meminfo() {
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : lines("proc/meminfo")) {
            String[] f = line.split("[:\\s]+");
            if (f.length >= 2) {
                try {
                    long v = Long.parseLong(f[1]);
                    values.put(f[0], f.length >= 3 && f[2].equalsIgnoreCase("kB") ? v * 1024 : v);
                } catch (NumberFormatException ignored) {
                    // not a number line: nothing to report for it
                }
            }
        }
        return values;
    }

    private List<Double> loadAverage() {
        return text("proc/loadavg")
                .map(l -> {
                    String[] f = l.split("\\s+");
                    if (f.length < 3) return null;
                    try {
                        return List.of(Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2]));
                    } catch (NumberFormatException e) {
                        return null;
                    }
                })
                .orElse(null);
    }

    /** Per CPU from /proc/stat: {busy, total} jiffies (idle and iowait are not busy). */
    private Map<Integer, long[]> cpuTimes() {
        Map<Integer, long[]> times = new TreeMap<>();
        for (String line : lines("proc/stat")) {
            if (!line.startsWith("cpu") || line.startsWith("cpu ")) continue;
            String[] f = line.split("\\s+");
            if (f.length < 5) continue;
            try {
                int cpu = Integer.parseInt(f[0].substring(3));
                long total = 0;
                // guest and guest_nice (fields 9, 10) are already counted in user and nice.
                for (int i = 1; i < Math.min(f.length, 9); i++) total += Long.parseLong(f[i]);
                long idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
                times.put(cpu, new long[] {total - idle, total});
            } catch (NumberFormatException e) {
                // a line this version does not understand: that CPU stays unmeasured
            }
        }
        return times;
    }

    private static Double busy(
            CpuList job,
            Map<Integer, long[]> before,
            Map<Integer, long[]> after,
            List<MachineFingerprint.Warning> warnings) {
        long busy = 0;
        long total = 0;
        List<String> hot = new ArrayList<>();
        for (int cpu : job.cpus()) {
            long[] a = before.get(cpu);
            long[] b = after.get(cpu);
            if (a == null || b == null) continue;
            long db = Math.max(0, b[0] - a[0]);
            long dt = Math.max(0, b[1] - a[1]);
            busy += db;
            total += dt;
            if (dt > 0 && (double) db / dt > BUSY_THRESHOLD) hot.add("CPU " + cpu + " " + percent((double) db / dt));
        }
        if (total == 0) return null; // the sample was shorter than a clock tick: nothing measured
        double share = Math.min(1.0, (double) busy / total);
        if (!hot.isEmpty())
            warnings.add(warning(
                    NoiseCode.BUSY_CPUS,
                    "other processes kept the job's CPUs busy just before it started: " + String.join(", ", hot)));
        return share;
    }

    // ---- reading ----------------------------------------------------------------------------

    private Optional<String> text(String relative) {
        try {
            return Optional.of(Files.readString(root.resolve(relative), StandardCharsets.UTF_8)
                            .strip())
                    .filter(s -> !s.isEmpty());
        } catch (IOException | SecurityException e) {
            return Optional.empty(); // absent (or unreadable): unknown
        }
    }

    private List<String> lines(String relative) {
        try {
            return Files.readAllLines(root.resolve(relative), StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    private static Optional<CpuList> cpuList(String text) {
        try {
            return Optional.of(CpuList.parse(text));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static String cpus(List<Integer> cpus) {
        return new CpuList(new java.util.TreeSet<>(cpus)).toString();
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.0f%%", share * 100);
    }

    /** A warning whose sentence fits the protocol's bound (a long CPU list could pass it). */
    private static MachineFingerprint.Warning warning(NoiseCode code, String message) {
        return new MachineFingerprint.Warning(code, cut(message));
    }

    static String cut(String s) {
        return s.length() <= MachineFingerprint.MAX_TEXT ? s : s.substring(0, MachineFingerprint.MAX_TEXT);
    }
}
