package dev.baton.cli.runner;

import java.io.PrintWriter;
import java.util.Optional;

/**
 * Which CPUs the agent and the workload use (seed 001: heartbeat on a separate core, benchmark
 * cores isolated). On a machine with more than one CPU the agent keeps CPU 0 and the workload
 * gets the rest, unless configured otherwise or disabled. The agent is pinned with
 * {@code taskset}, which applies to every thread of the JVM, existing and future.
 */
record CpuPlan(Optional<String> housekeeping, Optional<String> benchmark) {

    static CpuPlan of(int cpus, boolean disabled, String housekeeping, String benchmark) {
        if (disabled) return new CpuPlan(Optional.empty(), Optional.empty());
        if (housekeeping != null || benchmark != null) {
            return new CpuPlan(Optional.ofNullable(housekeeping), Optional.ofNullable(benchmark));
        }
        if (cpus <= 1) return new CpuPlan(Optional.empty(), Optional.empty());
        return new CpuPlan(Optional.of("0"), Optional.of(cpus == 2 ? "1" : "1-" + (cpus - 1)));
    }

    void pinAgent(PrintWriter err) {
        if (housekeeping.isEmpty()) return;
        try {
            Process p = new ProcessBuilder(
                            "taskset",
                            "-a",
                            "-p",
                            "-c",
                            housekeeping.get(),
                            Long.toString(ProcessHandle.current().pid()))
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0)
                err.println(
                        "baton runner up: could not pin the agent to CPU " + housekeeping.get() + ": " + out.strip());
        } catch (Exception e) {
            err.println("baton runner up: could not pin the agent (taskset: " + e.getMessage() + ")");
        }
    }
}
