package dev.baton.core.adapter;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rust_criterion}: the text Criterion.rs prints under {@code cargo bench}. Each benchmark
 * has a line {@code <name>  time: [<low> <unit> <estimate> <unit> <high> <unit>]} (a long name
 * is printed on the line before, and the time line then starts with blanks), optionally followed
 * by {@code thrpt: [low estimate high]}. The estimate is the value and the confidence interval
 * the bounds: {@code time} → {@code latency} in nanoseconds; {@code thrpt} in elements per second
 * (elem/s, Kelem/s, Melem/s, Gelem/s) → {@code throughput}, in bytes per second (B/s, KiB/s,
 * MiB/s, GiB/s, KB/s, MB/s, GB/s) → {@code bandwidth}. Other lines (Benchmarking…, change,
 * outliers) are ignored.
 */
public final class CriterionAdapter implements Adapter {
    public static final String NAME = "rust_criterion";
    private static final Pattern TIME = Pattern.compile("^(.*?)\\s*time:\\s*\\[(.*)]\\s*$");
    private static final Pattern THROUGHPUT = Pattern.compile("^\\s*thrpt:\\s*\\[(.*)]\\s*$");

    @Override
    public String name() {
        return NAME;
    }

    static boolean recognizes(String text) {
        return text.lines().anyMatch(l -> TIME.matcher(l).matches());
    }

    @Override
    public Metrics parse(String text) {
        Metrics.Builder out = new Metrics.Builder();
        String[] lines = (text == null ? "" : text).split("\\R");
        String current = null;
        String previous = null;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            String where = "line " + (i + 1);
            Matcher time = TIME.matcher(line);
            Matcher thrpt = THROUGHPUT.matcher(line);
            if (time.matches()) {
                String name = time.group(1).strip();
                if (name.isEmpty()) name = previous;
                if (name == null || name.isEmpty())
                    throw new AdapterException(where + ": a time line without a benchmark name");
                current = name;
                Triple t = triple(time.group(2), where);
                out.add(name, Measures.LATENCY, new Metric(t.estimate, t.low, t.high).scaled(nanos(t.unit, where)));
            } else if (thrpt.matches()) {
                if (current == null) throw new AdapterException(where + ": a thrpt line before any time line");
                Triple t = triple(thrpt.group(1), where);
                String perSecond = t.unit.endsWith("/s") ? t.unit.substring(0, t.unit.length() - 2) : null;
                if (perSecond == null) throw new AdapterException(where + ": unknown throughput unit '" + t.unit + "'");
                var elements = Units.elements(perSecond);
                var bytes = Units.bytes(perSecond);
                if (elements.isPresent()) {
                    out.add(current, Measures.THROUGHPUT, new Metric(t.estimate, t.low, t.high).scaled(elements.get()));
                } else if (bytes.isPresent()) {
                    out.add(current, Measures.BANDWIDTH, new Metric(t.estimate, t.low, t.high).scaled(bytes.get()));
                } else {
                    throw new AdapterException(where + ": unknown throughput unit '" + t.unit + "'");
                }
            }
            if (!line.isBlank()) previous = line.strip();
        }
        if (out.isEmpty())
            throw new AdapterException("no Criterion result lines (<name> time: [<low> <estimate> <high>])");
        return out.build();
    }

    private record Triple(double low, double estimate, double high, String unit) {}

    /** "2.5094 ms 2.5306 ms 2.5553 ms": three values, one unit (Criterion prints the same unit thrice). */
    private static Triple triple(String inside, String where) {
        String[] t = inside.strip().split("\\s+");
        if (t.length != 6)
            throw new AdapterException(where + ": expected [<low> <unit> <estimate> <unit> <high> <unit>]");
        try {
            double low = Units.number(t[0]) * factor(t[1], t[5]);
            double estimate = Units.number(t[2]) * factor(t[3], t[5]);
            double high = Units.number(t[4]);
            return new Triple(low, estimate, high, t[5]);
        } catch (AdapterException e) {
            throw new AdapterException(where + ": " + e.getMessage());
        }
    }

    /** Converts a value printed in {@code unit} to {@code target} when Criterion mixed units (e.g. 999.1 ns 1.0012 µs). */
    private static double factor(String unit, String target) {
        if (unit.equals(target)) return 1;
        var a = Units.nanos(unit);
        var b = Units.nanos(target);
        if (a.isPresent() && b.isPresent()) return a.get() / b.get();
        String au = unit.endsWith("/s") ? unit.substring(0, unit.length() - 2) : unit;
        String bu = target.endsWith("/s") ? target.substring(0, target.length() - 2) : target;
        var ae = Units.elements(au).or(() -> Units.bytes(au));
        var be = Units.elements(bu).or(() -> Units.bytes(bu));
        if (ae.isPresent() && be.isPresent()) return ae.get() / be.get();
        throw new AdapterException("unknown unit '" + unit + "'");
    }

    private static double nanos(String unit, String where) {
        return Units.nanos(unit).orElseThrow(() -> new AdapterException(where + ": unknown time unit '" + unit + "'"));
    }
}
