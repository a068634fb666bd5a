package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The agent beside a job (issue 45, "An agent that stays out of the way"): does running a CPU loop
 * under Baton's agent make its timings noisier than running it bare, and how much CPU does the
 * agent itself use while the job runs?
 *
 * <p>A real server in this process and one real agent ({@code ./baton runner up --executor process
 * --allow-no-sandbox}, through the launcher, so its JVM options and its CPU plan count: on two
 * CPUs the agent on CPU 0, the workload on CPU 1). The workload is a C loop ({@code cpuloop.c},
 * compiled here with {@code gcc -O2}) that times each repetition. Rounds alternate: the loop bare
 * on the benchmark CPU ({@code taskset -c 1}), then the same loop as a job through the agent. Per
 * run the coefficient of variation of its repetitions; per job the agent's own CPU time over the
 * job's lifetime (the larger of its live threads' {@code schedstat} and its process's utime + stime)
 * against the loop's. Options:
 * {@code --rounds N} (5), {@code --turns N} (20,000,000 per repetition), {@code --repetitions N} (200).
 */
final class AgentBesideJob {
    private AgentBesideJob() {}

    static void run(String[] args) throws Exception {
        int rounds = 5, repetitions = 200;
        long turns = 20_000_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--turns" -> turns = Long.parseLong(args[++i]);
                case "--repetitions" -> repetitions = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (bench/run agent-job [--rounds N] [--turns N] [--repetitions N])");
            }
        }
        Path root = Path.of("").toAbsolutePath();
        Path launcher = root.resolve("baton");
        if (!Files.isExecutable(launcher)) throw new IllegalStateException("run from the repository root: no ./baton");
        Path work = Files.createTempDirectory("baton-bench-agent-job-");
        Path loop = compile(work);
        List<String> command = List.of(loop.toString(), Long.toString(turns), Integer.toString(repetitions));
        try (BenchServer server = BenchServer.start(work.resolve("server"), null)) {
            server.createSpec("beside");
            BenchServer.Credentials runner = server.createRunner("agent-beside-job", "beside");
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
                            work.resolve("runner").toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put("BATON_RUNNER_KEY", runner.key());
            Process agent = pb.start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(900);
                while (!Files.readString(log).contains("connected to")) {
                    if (!agent.isAlive() || System.nanoTime() > deadline)
                        throw new IllegalStateException("the agent did not connect:\n" + Files.readString(log));
                    Thread.sleep(200);
                }
                System.out.printf(
                        Locale.ROOT,
                        "agent beside a job: %d rounds, the loop %d repetitions of %d turns; load average %s%n",
                        rounds,
                        repetitions,
                        turns,
                        ResourceUse.currentLoadAverage());
                List<Double> ratios = new ArrayList<>();
                List<Double> shares = new ArrayList<>();
                for (int r = 1; r <= rounds; r++) {
                    double bare = cv(bare(command));
                    long before = agentCpuNanos(agent.pid());
                    long ticksBefore = AgentAtRest.processCpuTicks(agent.pid());
                    double[] underAgent = throughAgent(server, command);
                    // Live threads' schedstat is exact but misses threads that ended during the job;
                    // the process's utime + stime counts them, in 10-ms ticks: the larger of the two.
                    double agentMs = Math.max(
                            (agentCpuNanos(agent.pid()) - before) / 1e6,
                            (AgentAtRest.processCpuTicks(agent.pid()) - ticksBefore) * 10.0);
                    double loopMs = Arrays.stream(underAgent).sum() / 1e6;
                    double cv = cv(underAgent);
                    ratios.add(cv / bare);
                    shares.add(agentMs / loopMs);
                    System.out.printf(
                            Locale.ROOT,
                            "  round %d: CV bare %.4f, under the agent %.4f (ratio %.3f); agent CPU %.1f ms"
                                    + " while the job ran, the loop's %.0f ms (%.3f %%)%n",
                            r,
                            bare,
                            cv,
                            cv / bare,
                            agentMs,
                            loopMs,
                            100 * agentMs / loopMs);
                }
                System.out.printf(
                        Locale.ROOT,
                        "median: CV under the agent ÷ bare %.3f; the agent's CPU %.3f %% of the job's; load average %s%n",
                        median(ratios),
                        100 * median(shares),
                        ResourceUse.currentLoadAverage());
            } finally {
                agent.destroy();
                if (!agent.waitFor(40, TimeUnit.SECONDS)) agent.destroyForcibly();
            }
        }
    }

    private static Path compile(Path work) throws IOException, InterruptedException {
        Path source = work.resolve("cpuloop.c");
        try (InputStream in = AgentBesideJob.class.getResourceAsStream("cpuloop.c")) {
            if (in == null) throw new IllegalStateException("cpuloop.c is not on the class path");
            Files.copy(in, source);
        }
        Path binary = work.resolve("cpuloop");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-o", binary.toString(), source.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (gcc.waitFor() != 0) throw new IllegalStateException("gcc failed (apt-get install gcc):\n" + out);
        return binary;
    }

    /** The loop run directly on the benchmark CPU, as the agent's process executor pins it. */
    private static double[] bare(List<String> command) throws IOException, InterruptedException {
        List<String> pinned = new ArrayList<>(List.of("taskset", "-c", "1"));
        pinned.addAll(command);
        Process p = new ProcessBuilder(pinned).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) throw new IllegalStateException("the loop failed: " + out);
        return times(out);
    }

    private static double[] throughAgent(BenchServer server, List<String> command) throws InterruptedException {
        String job = server.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                BenchServer.PROJECT,
                                "spec",
                                "beside",
                                "cmd",
                                command,
                                "timeout",
                                600,
                                "adapter",
                                "raw"))
                .at("/job/uuid")
                .asText();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (true) {
            JsonNode j = server.get("/v0/projects/" + BenchServer.PROJECT + "/jobs/" + job);
            String status = j.get("status").asText();
            if (status.equals("processed"))
                return times(j.at("/output/results/0/stdout").asText());
            if (status.equals("failed") || status.equals("canceled") || System.nanoTime() > deadline)
                throw new IllegalStateException("the job ended " + status + ": " + j);
            Thread.sleep(100);
        }
    }

    /** The CPU time of every live thread of the agent's JVM, in nanoseconds ({@code schedstat}). */
    private static long agentCpuNanos(long pid) throws IOException {
        return AgentAtRest.threads(pid).values().stream()
                .mapToLong(AgentAtRest.ThreadSample::cpuNanos)
                .sum();
    }

    private static double[] times(String out) {
        return out.lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .mapToDouble(Double::parseDouble)
                .toArray();
    }

    private static double cv(double[] x) {
        double mean = Arrays.stream(x).average().orElse(Double.NaN);
        double ss = 0;
        for (double v : x) ss += (v - mean) * (v - mean);
        return Math.sqrt(ss / (x.length - 1)) / mean;
    }

    private static double median(List<Double> x) {
        double[] s = x.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
