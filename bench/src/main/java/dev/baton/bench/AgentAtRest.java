package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The runner agent at rest (issue 45, "An agent that stays out of the way"): a real server in
 * this process and one real agent, {@code ./baton runner up --executor process}, started through
 * the launcher as an operator starts it (so the launcher's JVM options count), connected and
 * idle. After it connected and settled, over a window (60 s by default) it reads from /proc of the
 * agent's process: the resident set (VmRSS, largest seen), the CPU time (utime + stime of
 * /proc/PID/stat, as a share of one core), and the thread wake-ups (voluntary and involuntary
 * context switches summed over /proc/PID/task/{@literal *}/status, per second), per thread name so the
 * noisy ones show. Options: {@code --seconds N}, {@code --settle N}, {@code --java-opts "..."}
 * (added through BATON_JAVA_OPTS), {@code --runner-java-opts "..."} (BATON_RUNNER_JAVA_OPTS: the
 * launcher's runner flags replaced; "" for the JVM's defaults).
 */
final class AgentAtRest {
    private AgentAtRest() {}

    /** One thread's counters: its name and its context switches so far. */
    record ThreadSample(String name, long switches, long cpuNanos) {}

    static void run(String[] args) throws Exception {
        int seconds = 60, settle = 15;
        String javaOpts = null, runnerJavaOpts = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--settle" -> settle = Integer.parseInt(args[++i]);
                case "--java-opts" -> javaOpts = args[++i];
                case "--runner-java-opts" -> runnerJavaOpts = args[++i];
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (bench/run agent [--seconds N] [--settle N] [--java-opts S] [--runner-java-opts S])");
            }
        }
        Path root = Path.of("").toAbsolutePath();
        Path launcher = root.resolve("baton");
        if (!Files.isExecutable(launcher)) throw new IllegalStateException("run from the repository root: no ./baton");
        Path work = Files.createTempDirectory("baton-bench-agent-");
        try (BenchServer server = BenchServer.start(work.resolve("server"), null)) {
            server.createSpec("agent");
            BenchServer.Credentials runner = server.createRunner("agent-at-rest", "agent");
            Path log = work.resolve("agent.log");
            ProcessBuilder pb = new ProcessBuilder(
                            launcher.toString(),
                            "runner",
                            "up",
                            "--server",
                            server.baseUrl(),
                            "--runner",
                            runner.slug(),
                            "--executor",
                            "process",
                            "--allow-no-sandbox",
                            "--work-dir",
                            work.resolve("runner").toString(),
                            // The noise calibration runs in a child JVM before the agent connects, so its
                            // size does not change the agent at rest; fewer repetitions only shorten the bench.
                            "--noise-repetitions",
                            "20")
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("BATON_RUNNER_KEY", runner.key());
            if (javaOpts != null) pb.environment().put("BATON_JAVA_OPTS", javaOpts);
            if (runnerJavaOpts != null) pb.environment().put("BATON_RUNNER_JAVA_OPTS", runnerJavaOpts);
            Process agent = pb.start();
            try {
                // The launcher builds Baton first when its sources changed: minutes on a loaded machine.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(900);
                while (!Files.readString(log).contains("connected to")) {
                    if (!agent.isAlive() || System.nanoTime() > deadline)
                        throw new IllegalStateException("the agent did not connect:\n" + Files.readString(log));
                    Thread.sleep(200);
                }
                long pid = agent.pid();
                System.err.println("bench: agent " + pid + " connected; settling " + settle + " s, then measuring "
                        + seconds + " s");
                System.err.println("bench: agent command line: " + commandLine(pid));
                Thread.sleep(settle * 1000L);
                long cpu0 = processCpuTicks(pid);
                Map<String, ThreadSample> before = threads(pid);
                long wall0 = System.nanoTime();
                double rssMax = 0;
                for (int s = 0; s < seconds; s++) {
                    Thread.sleep(1000);
                    rssMax = Math.max(rssMax, statusKiB(Path.of("/proc", String.valueOf(pid), "status"), "VmRSS:"));
                }
                double wall = (System.nanoTime() - wall0) / 1e9;
                long cpu1 = processCpuTicks(pid);
                Map<String, ThreadSample> after = threads(pid);
                Path status = Path.of("/proc", String.valueOf(pid), "status");
                report(pid, wall, rssMax, (cpu1 - cpu0) / (double) clockTicks(), before, after);
                // What the resident set is made of: the process's own memory, and file pages (libjvm.so,
                // the JDK's class-data archive, jars) that other processes may share.
                System.out.printf(
                        "  of it at the end: anonymous %.1f MiB, file-backed %.1f MiB%n",
                        statusKiB(status, "RssAnon:") / 1024.0, statusKiB(status, "RssFile:") / 1024.0);
            } finally {
                agent.destroy();
                if (!agent.waitFor(40, TimeUnit.SECONDS)) agent.destroyForcibly();
            }
        }
    }

    private static void report(
            long pid,
            double wall,
            double rssKiB,
            double cpuSeconds,
            Map<String, ThreadSample> before,
            Map<String, ThreadSample> after) {
        // Per thread name (several GC or compiler threads share a prefix): wake-ups per second and CPU.
        Map<String, double[]> byName = new TreeMap<>();
        long switches = 0;
        for (var e : after.entrySet()) {
            ThreadSample b = before.getOrDefault(
                    e.getKey(), new ThreadSample(e.getValue().name(), 0, 0));
            long d = e.getValue().switches() - b.switches();
            long c = e.getValue().cpuNanos() - b.cpuNanos();
            switches += d;
            double[] acc = byName.computeIfAbsent(e.getValue().name(), n -> new double[3]);
            acc[0] += d / wall;
            acc[1] += c / 1e6;
            acc[2]++;
        }
        System.out.printf(
                "agent at rest (pid %d, %.1f s, load average %s)%n", pid, wall, ResourceUse.currentLoadAverage());
        System.out.printf("  RSS (largest VmRSS seen)       %8.1f MiB%n", rssKiB / 1024);
        System.out.printf(
                "  CPU (utime+stime)              %8.3f %% of one core (%.0f ms)%n",
                cpuSeconds / wall * 100, cpuSeconds * 1000);
        System.out.printf(
                "  wake-ups (context switches)    %8.2f per second, %d threads%n", switches / wall, after.size());
        List<Map.Entry<String, double[]>> sorted = new ArrayList<>(byName.entrySet());
        sorted.sort((x, y) -> Double.compare(y.getValue()[0], x.getValue()[0]));
        System.out.println("  per thread name: wake-ups/s, CPU ms over the window, threads");
        for (var e : sorted) {
            System.out.printf(
                    "    %-28s %8.2f %9.1f %3.0f%n", e.getKey(), e.getValue()[0], e.getValue()[1], e.getValue()[2]);
        }
    }

    private static String commandLine(long pid) throws IOException {
        return Files.readString(Path.of("/proc", String.valueOf(pid), "cmdline"))
                .replace('\0', ' ')
                .strip();
    }

    /** utime + stime of the whole process (threads that ended included), in clock ticks. */
    static long processCpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of proc(5)
    }

    private static long clockTicks() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("getconf", "CLK_TCK").start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        p.waitFor();
        return out.isEmpty() ? 100 : Long.parseLong(out);
    }

    /** Every live thread of the process by thread id: its name, context switches and CPU time (schedstat). */
    static Map<String, ThreadSample> threads(long pid) throws IOException {
        Map<String, ThreadSample> out = new LinkedHashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip();
                    long sw = statusKiB(t.resolve("status"), "voluntary_ctxt_switches:")
                            + statusKiB(t.resolve("status"), "nonvoluntary_ctxt_switches:");
                    long cpu = Long.parseLong(
                            Files.readString(t.resolve("schedstat")).strip().split(" ")[0]);
                    out.put(t.getFileName().toString(), new ThreadSample(name, sw, cpu));
                } catch (IOException | RuntimeException e) {
                    // the thread ended while we read it
                }
            }
        }
        return out;
    }

    private static long statusKiB(Path status, String field) throws IOException {
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith(field))
                return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
        }
        return 0;
    }
}
