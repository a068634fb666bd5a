package dev.baton.core.adapter;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code go_bench}: the text of {@code go test -bench} (Go's benchmark data format): a result
 * line is a name starting with {@code Benchmark}, the iteration count, then value–unit pairs, e.g.
 * {@code BenchmarkSort-8   1000   1234 ns/op   56 B/op   2 allocs/op}. Other lines (goos, pkg,
 * PASS, ok, logs) are ignored. The name is kept as printed, GOMAXPROCS suffix included. Units:
 * {@code ns/op} → {@code latency} (ns), {@code B/op} → {@code allocated-bytes},
 * {@code allocs/op} → {@code allocations}, {@code MB/s} → {@code bandwidth} (bytes per second,
 * Go's MB being 10⁶ bytes); any other unit (from {@code b.ReportMetric}) is a measure named by
 * the unit. Several lines for one benchmark ({@code -count=N}) merge (mean, min/max bounds).
 */
public final class GoBenchAdapter implements Adapter {
    public static final String NAME = "go_bench";
    private static final Pattern RESULT = Pattern.compile("^(Benchmark\\S*)\\s+(\\d+)\\s+(\\S.*)$");

    @Override
    public String name() {
        return NAME;
    }

    /** Whether {@code text} has at least one benchmark result line. */
    static boolean recognizes(String text) {
        return text.lines().anyMatch(l -> RESULT.matcher(l.strip()).matches());
    }

    @Override
    public Metrics parse(String text) {
        Metrics.Builder out = new Metrics.Builder();
        String[] lines = (text == null ? "" : text).split("\\R");
        for (int i = 0; i < lines.length; i++) {
            Matcher m = RESULT.matcher(lines[i].strip());
            if (!m.matches()) continue;
            String where = "line " + (i + 1);
            String[] pairs = m.group(3).strip().split("\\s+");
            if (pairs.length % 2 != 0) throw new AdapterException(where + ": values and units do not pair up");
            for (int p = 0; p < pairs.length; p += 2) {
                double value;
                try {
                    value = Units.number(pairs[p]);
                } catch (AdapterException e) {
                    throw new AdapterException(where + ": " + e.getMessage());
                }
                String unit = pairs[p + 1];
                switch (unit) {
                    case "ns/op" -> out.add(m.group(1), Measures.LATENCY, Metric.of(value));
                    case "B/op" -> out.add(m.group(1), Measures.ALLOCATED_BYTES, Metric.of(value));
                    case "allocs/op" -> out.add(m.group(1), Measures.ALLOCATIONS, Metric.of(value));
                    case "MB/s" -> out.add(m.group(1), Measures.BANDWIDTH, Metric.of(value * 1e6));
                    default -> out.add(m.group(1), unit, Metric.of(value));
                }
            }
        }
        if (out.isEmpty())
            throw new AdapterException("no Go benchmark result lines (Benchmark<Name> <iterations> <value> <unit> …)");
        return out.build();
    }
}
