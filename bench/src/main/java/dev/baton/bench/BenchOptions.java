package dev.baton.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Command-line flags of the harness; --smoke shrinks everything to a seconds-long run. */
record BenchOptions(
        BenchDatabase.Kind database,
        List<Integer> runners,
        int slots,
        int jobs,
        int samples,
        int baselineSamples,
        int connections,
        int durationSeconds,
        int warmupSeconds,
        Path out,
        String pgUrl,
        String pgUser,
        boolean smoke) {

    static final String USAGE = """
            usage: bench [--database sqlite|postgresql] [--runners 1,10,100] [--slots 1] [--jobs 2000]
                         [--samples 1000] [--baseline-samples 30] [--connections 1000] [--duration 20]
                         [--warmup 5] [--out bench-results] [--pg-url postgresql://127.0.0.1:5432/test]
                         [--pg-user postgres] [--smoke]
                   bench jmh [JMH options]   (microbenchmarks; short settings by default)
                   bench floor [--database …] [--runners …] [--jobs …]   (the transport floor alone, to profile it)
                   bench cores [--database …] [--runners …] [--jobs …]   (lifecycle with the server on 1 and 2 cores, the harness pinned apart)
                   bench lifecycle [--database …] [--runners …] [--jobs …] [--samples …]   (dispatch, lifecycle and floor; PostgreSQL: statements per job)""";

    static BenchOptions parse(String... args) {
        BenchDatabase.Kind database = BenchDatabase.Kind.SQLITE;
        List<Integer> runners = null;
        Integer slots = null,
                jobs = null,
                samples = null,
                baseline = null,
                connections = null,
                duration = null,
                warmup = null;
        Path out = Path.of("bench-results");
        String pgUrl = System.getenv().getOrDefault("BATON_BENCH_PG_URL", "postgresql://127.0.0.1:5432/test");
        String pgUser = System.getenv().getOrDefault("BATON_BENCH_PG_USER", "postgres");
        boolean smoke = false;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--smoke")) {
                smoke = true;
                continue;
            }
            if (flag.equals("--help") || flag.equals("-h")) throw new IllegalArgumentException(USAGE);
            if (i + 1 >= args.length) throw new IllegalArgumentException("missing value for " + flag + "\n" + USAGE);
            String v = args[++i];
            switch (flag) {
                case "--database" ->
                    database = switch (v) {
                        case "sqlite" -> BenchDatabase.Kind.SQLITE;
                        case "postgresql", "postgres" -> BenchDatabase.Kind.POSTGRESQL;
                        default ->
                            throw new IllegalArgumentException("--database must be sqlite or postgresql, got " + v);
                    };
                case "--runners" ->
                    runners = Arrays.stream(v.split(","))
                            .map(s -> positive(flag, s))
                            .toList();
                case "--slots" -> slots = positive(flag, v);
                case "--jobs" -> jobs = positive(flag, v);
                case "--samples" -> samples = positive(flag, v);
                case "--baseline-samples" -> baseline = positive(flag, v);
                case "--connections" -> connections = positive(flag, v);
                case "--duration" -> duration = positive(flag, v);
                case "--warmup" -> warmup = positive(flag, v);
                case "--out" -> out = Path.of(v);
                case "--pg-url" -> pgUrl = v;
                case "--pg-user" -> pgUser = v;
                default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
            }
        }
        if (connections != null && connections > 10_000)
            throw new IllegalArgumentException("--connections is at most 10000");
        return new BenchOptions(
                database,
                runners != null ? runners : smoke ? List.of(1, 3) : List.of(1, 10, 100),
                or(slots, 1),
                or(jobs, smoke ? 30 : 2000),
                or(samples, smoke ? 10 : 1000),
                or(baseline, smoke ? 2 : 30),
                or(connections, smoke ? 20 : 1000),
                or(duration, smoke ? 2 : 20),
                or(warmup, smoke ? 1 : 5),
                out,
                pgUrl,
                pgUser,
                smoke);
    }

    List<String> describe() {
        List<String> d = new ArrayList<>();
        d.add("database=" + database.name().toLowerCase());
        d.add("runners=" + runners);
        d.add("slots=" + slots);
        d.add("jobs=" + jobs);
        d.add("samples=" + samples);
        d.add("baseline_samples=" + baselineSamples);
        d.add("connections=" + connections);
        d.add("duration=" + durationSeconds + "s");
        d.add("warmup=" + warmupSeconds + "s");
        if (smoke) d.add("smoke");
        return d;
    }

    private static int positive(String flag, String v) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n > 0) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(flag + " must be a positive integer, got " + v);
    }

    private static int or(Integer v, int fallback) {
        return v != null ? v : fallback;
    }
}
