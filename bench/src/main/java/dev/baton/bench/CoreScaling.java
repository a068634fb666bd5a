package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Measurement 2p: lifecycle jobs/s with the server on one core and on two, the harness on a core
 * of its own. The harness (the lifecycle phase's submitters and simulated runners) runs in a
 * child JVM, {@link PinnedHarness}, started with {@code taskset -c H}; the server is this
 * process (the real server with the counting store, which sees {@code processed}), all its
 * threads pinned with {@code taskset -a -p} to the first allowed CPU for the 1-core run and to
 * the first two for the 2-core run. H is the third allowed CPU where there is one; on a 2-core
 * machine it is the second, so in the 2-core run the harness shares a core with the server.
 * Every run gets a fresh server on a fresh database, started after the pinning (its own pools
 * see the pinned CPUs; the JVM's GC and JIT threads and the virtual-thread scheduler were sized
 * at start, for every allowed CPU). Unmeasured warm-up runs come first ({@link WarmUp}), so the JIT is warm
 * for both. PostgreSQL's backends are not pinned: they run on any core.
 */
final class CoreScaling {
    /** One run: where the server and the harness ran, and the lifecycle's figures. */
    record Run(
            String serverCpus,
            String harnessCpus,
            int runners,
            int slots,
            int jobs,
            int submitters,
            double seconds,
            double jobsPerSecond,
            double submitSeconds,
            boolean finished,
            long problems,
            int serverThreadsPinned,
            ResourceUse server,
            double harnessCpuCores) {}

    /** Both runs for one R and their ratio, 2 cores ÷ 1 core. */
    record Result(int runners, Run oneCore, Run twoCores, double ratio) {}

    private CoreScaling() {}

    /** Both runs for every R, after a warm-up run unless {@code warmUp} is false (the smoke run skips it). */
    static List<Result> run(
            BenchDatabase database, Path work, List<Integer> runnerCounts, int slots, int jobs, boolean warmUp)
            throws Exception {
        List<Integer> allowed = CpuPinning.allowedCpus();
        List<Integer> oneCore = allowed.subList(0, 1);
        List<Integer> twoCores = allowed.subList(0, 2);
        List<Integer> harnessCpu = List.of(allowed.size() >= 3 ? allowed.get(2) : allowed.get(1));
        List<Result> results = new ArrayList<>();
        try (Harness harness = Harness.start(harnessCpu)) {
            try {
                if (warmUp) {
                    int[] rounds = {0};
                    for (int r : runnerCounts) {
                        WarmUp.untilCompiled(
                                "cores R=" + r + ", server on CPUs " + CpuPinning.format(twoCores),
                                () -> measure(
                                        harness,
                                        database,
                                        work.resolve("warm-up-" + ++rounds[0]),
                                        twoCores,
                                        r,
                                        slots,
                                        jobs));
                    }
                }
                for (int r : runnerCounts) {
                    Bench.log("cores: server on CPU " + CpuPinning.format(oneCore) + ", harness on CPU " + harness.cpus
                            + ", " + r + " runners x " + slots + " slots, " + jobs + " jobs");
                    Run one = measure(harness, database, work.resolve("one-" + r), oneCore, r, slots, jobs);
                    Bench.log("cores: server on CPUs " + CpuPinning.format(twoCores) + ", harness on CPU "
                            + harness.cpus + ", " + r + " runners x " + slots + " slots, " + jobs + " jobs");
                    Run two = measure(harness, database, work.resolve("two-" + r), twoCores, r, slots, jobs);
                    results.add(new Result(
                            r, one, two, LifecycleThroughput.round(two.jobsPerSecond() / one.jobsPerSecond())));
                }
            } finally {
                CpuPinning.pinProcess(allowed);
            }
        }
        return results;
    }

    private static Run measure(
            Harness harness,
            BenchDatabase database,
            Path dataDir,
            List<Integer> serverCpus,
            int runnerCount,
            int slots,
            int jobs)
            throws Exception {
        int pinned = CpuPinning.pinProcess(serverCpus);
        try (BenchServer server = BenchServer.start(dataDir, database.freshUrl())) {
            String spec = "cores-" + runnerCount + "x" + slots;
            server.createSpec(spec);
            List<List<String>> runners = new ArrayList<>();
            for (int i = 0; i < runnerCount; i++) {
                BenchServer.Credentials c = server.createRunner(spec + "-" + i, spec);
                runners.add(List.of(c.slug(), c.key()));
            }
            Map<String, Object> plan = new LinkedHashMap<>();
            plan.put("base_url", server.baseUrl());
            plan.put("token", server.adminToken());
            plan.put("spec", spec);
            plan.put("slots", slots);
            plan.put("jobs", jobs);
            plan.put("runners", runners);
            Path planFile = dataDir.resolve("harness-plan.json");
            Files.writeString(planFile, Wire.encode(plan));
            harness.command("PREPARE " + planFile.toAbsolutePath(), "READY");

            long processedBefore = server.processed();
            ResourceUse.Meter meter = ResourceUse.start();
            long t0 = System.nanoTime();
            harness.send("GO");
            long deadline = t0 + TimeUnit.SECONDS.toNanos(Math.max(60, jobs / 10));
            while (server.processed() - processedBefore < jobs && System.nanoTime() < deadline) Thread.sleep(2);
            long done = server.processed() - processedBefore;
            ResourceUse used = meter.stop();
            boolean finished = done >= jobs;
            long end = finished ? server.lastProcessedNanos() : System.nanoTime();
            double submitSeconds =
                    Double.parseDouble(harness.expect("SUBMITTED").substring("SUBMITTED ".length()));
            JsonNode result =
                    Wire.mapper().readTree(harness.command("FINISH", "RESULT").substring("RESULT ".length()));
            double seconds = (end - t0) / 1e9;
            return new Run(
                    CpuPinning.format(serverCpus),
                    harness.cpus,
                    runnerCount,
                    slots,
                    jobs,
                    result.get("submitters").asInt(),
                    LifecycleThroughput.round(seconds),
                    LifecycleThroughput.round(done / seconds),
                    submitSeconds,
                    finished,
                    result.get("problems").asLong(),
                    pinned,
                    used,
                    result.get("cpu_cores").asDouble());
        }
    }

    static String describe(Run r) {
        return r.jobsPerSecond() + " jobs/s (" + r.jobs() + " jobs in " + r.seconds() + " s, " + r.submitters()
                + " submitters" + (r.finished() ? "" : ", UNFINISHED")
                + (r.problems() > 0 ? ", " + r.problems() + " protocol problems" : "") + "; server on CPU "
                + r.serverCpus() + ": " + Bench.use(r.server(), r.jobsPerSecond())
                + "; harness on CPU " + r.harnessCpus() + ": " + r.harnessCpuCores() + " cores CPU)";
    }

    /** {@code bench cores}: this measurement alone; prints the table and writes a results file. */
    static Path runAlone(BenchOptions o) throws Exception {
        String why = CpuPinning.unavailable();
        if (why != null) throw new IllegalStateException("cannot pin CPUs here: " + why);
        Path work = Files.createTempDirectory("baton-bench-cores-");
        Map<String, Object> json = Bench.header(o);
        List<String[]> table = new ArrayList<>();
        try (BenchDatabase database = new BenchDatabase(o.database(), o.pgUrl(), o.pgUser())) {
            json.put("database", database.describe(work));
            List<Result> results = run(database, work, o.runners(), o.slots(), o.jobs(), !o.smoke());
            json.put("core_scaling", results);
            addRows(table, results);
        } finally {
            Bench.deleteQuietly(work);
        }
        json.put("finished", java.time.Instant.now().toString());
        json.put("load_average_at_end", ResourceUse.currentLoadAverage());
        Bench.printTable(table);
        return Bench.write(o, "cores-" + o.database().name().toLowerCase(), json);
    }

    static void addRows(List<String[]> table, List<Result> results) {
        for (Result x : results) {
            table.add(Bench.row(
                    "2p lifecycle R=" + x.runners() + ", server on 1 core, harness in a child JVM",
                    describe(x.oneCore())));
            table.add(Bench.row("2p lifecycle R=" + x.runners() + ", server on 2 cores", describe(x.twoCores())));
            table.add(Bench.row("2p   2 cores ÷ 1 core, R=" + x.runners(), String.valueOf(x.ratio())));
        }
    }

    /** The child JVM running {@link PinnedHarness}, on its own CPU. */
    private static final class Harness implements AutoCloseable {
        final String cpus;
        private final Process process;
        private final BufferedReader out;
        private final Writer in;

        private Harness(String cpus, Process process) {
            this.cpus = cpus;
            this.process = process;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        static Harness start(List<Integer> cpus) throws IOException {
            List<String> command = new ArrayList<>(CpuPinning.command(cpus));
            command.addAll(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx1g",
                    "-cp",
                    System.getProperty("java.class.path"),
                    PinnedHarness.class.getName()));
            return new Harness(
                    CpuPinning.format(cpus),
                    new ProcessBuilder(command)
                            .redirectError(ProcessBuilder.Redirect.INHERIT)
                            .start());
        }

        void send(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
        }

        /** The next line starting with {@code prefix}; other lines are passed on to stderr. */
        String expect(String prefix) throws IOException {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(prefix)) return line;
                System.err.println("bench: harness: " + line);
            }
            throw new IOException("the harness process ended (exit " + (process.isAlive() ? "?" : process.exitValue())
                    + ") before answering " + prefix);
        }

        String command(String line, String answer) throws IOException {
            send(line);
            return expect(answer);
        }

        @Override
        public void close() throws InterruptedException {
            try {
                send("EXIT");
            } catch (IOException e) {
                // already gone
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }
}
