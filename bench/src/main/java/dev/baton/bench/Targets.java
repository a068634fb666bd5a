package dev.baton.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoublePredicate;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The summary at the end of a run: one line per row of docs/benchmarks.md's "Current targets"
 * table that the harness measures, with the target, this run's figure and whether it met it. A
 * row of the other database says so; a row this run could not measure says why. Targets per R
 * are met when every R of the run meets them.
 */
final class Targets {
    /** One summary line; {@code met} is null where this run has no figure for it. */
    record Line(String figure, String target, String result, Boolean met) {
        Line withNote(String note) {
            return new Line(figure, target, result + "; " + note, met);
        }

        String verdict() {
            return met == null ? "—" : met ? "met" : "not met";
        }
    }

    /** What one lifecycle round (one R) contributes. {@code batonOwnMillisPerJob} is -1 where the machine's CPU is unknown. */
    record Round(int runners, double lifecycleOverFloor, double batonOwnMillisPerJob, FlushedCommits.Result flushes) {}

    /** The figures of one run. {@code acrossNodes} and {@code cores} may be null, with {@code coresMissing} saying why for the latter. */
    record Figures(
            BenchDatabase.Kind database,
            List<Round> rounds,
            Summary dispatch,
            Summary acrossNodes,
            List<CoreScaling.Result> cores,
            String coresMissing) {}

    private Targets() {}

    static List<Line> of(Figures f) {
        boolean sqlite = f.database() == BenchDatabase.Kind.SQLITE;
        String other = sqlite ? "PostgreSQL" : "SQLite";
        String otherRun = "— (" + other + ": bench/run --database " + other.toLowerCase() + ")";
        List<Line> lines = new ArrayList<>();
        Line ratio = perRound(values(f.rounds(), Round::lifecycleOverFloor), v -> v >= (sqlite ? 0.5 : 0.3), "", "");
        lines.add(
                sqlite
                        ? named("lifecycle jobs/s ÷ transport floor jobs/s, SQLite", "≥ 0.5", ratio)
                        : notHere("lifecycle jobs/s ÷ transport floor jobs/s, SQLite", "≥ 0.5", otherRun));
        lines.add(
                sqlite
                        ? notHere("the same, PostgreSQL", "≥ 0.3", otherRun)
                        : named("the same, PostgreSQL", "≥ 0.3", ratio));
        double cpuTarget = sqlite ? 1.0 : 1.5;
        List<Round> known =
                f.rounds().stream().filter(r -> r.batonOwnMillisPerJob() >= 0).toList();
        Line cpu = known.isEmpty()
                ? new Line("", "", "not measured (no /proc/stat)", null)
                : perRound(
                        values(known, Round::batonOwnMillisPerJob),
                        v -> v <= cpuTarget,
                        (sqlite ? "SQLite " : "PostgreSQL "),
                        " ms");
        lines.add(named(
                "Baton's own machine CPU per job beyond floor and raw statements",
                "≤ 1.0 ms SQLite, ≤ 1.5 ms PostgreSQL",
                cpu));
        String flushFigure = "flushed commits per job on PostgreSQL (submit to processed)";
        if (sqlite) {
            lines.add(notHere(flushFigure, "≤ 3", otherRun));
        } else {
            List<Round> counted =
                    f.rounds().stream().filter(r -> r.flushes() != null).toList();
            lines.add(
                    counted.isEmpty()
                            ? notHere(flushFigure, "≤ 3", "not measured")
                            : named(
                                    flushFigure,
                                    "≤ 3",
                                    perRound(values(counted, r -> r.flushes().walSyncsPerJob()), v -> v <= 3, "", "")
                                            .withNote("WAL flushes of the whole cluster")));
        }
        String coresFigure =
                "lifecycle jobs/s with the server on 2 cores ÷ on 1 core (taskset, harness on the other core in both)";
        if (f.cores() == null || f.cores().isEmpty()) {
            lines.add(notHere(
                    coresFigure, "≥ 1.7", "not measured" + (f.coresMissing() == null ? "" : ": " + f.coresMissing())));
        } else {
            List<PerR> ratios = f.cores().stream()
                    .map(c -> new PerR(c.runners(), c.ratio()))
                    .toList();
            Line measured = perRound(ratios, v -> v >= 1.7, sqlite ? "SQLite " : "PostgreSQL ", "");
            if (f.cores().stream().anyMatch(Targets::harnessSharesACore))
                measured = measured.withNote("the harness shared a core with the 2-core server (a 2-core machine)");
            lines.add(named(coresFigure, "≥ 1.7", measured));
        }
        if (sqlite) {
            lines.add(dispatch("dispatch p50 / p99, SQLite", 2, 10, f.dispatch()));
            lines.add(notHere("dispatch p50 / p99, PostgreSQL, same node", "≤ 3 ms / ≤ 12 ms", otherRun));
            lines.add(notHere("dispatch p50 / p99, PostgreSQL, across nodes", "≤ 5 ms / ≤ 20 ms", otherRun));
        } else {
            lines.add(notHere("dispatch p50 / p99, SQLite", "≤ 2 ms / ≤ 10 ms", otherRun));
            lines.add(dispatch("dispatch p50 / p99, PostgreSQL, same node", 3, 12, f.dispatch()));
            lines.add(
                    f.acrossNodes() == null
                            ? notHere(
                                    "dispatch p50 / p99, PostgreSQL, across nodes",
                                    "≤ 5 ms / ≤ 20 ms",
                                    "not measured: see bench/run cluster")
                            : dispatch("dispatch p50 / p99, PostgreSQL, across nodes", 5, 20, f.acrossNodes()));
        }
        return lines;
    }

    /** Whether the harness's CPU was one of the server's in the 2-core run (so not "the other core"). */
    static boolean harnessSharesACore(CoreScaling.Result r) {
        return r.twoCores() != null
                && CpuPinning.parseList(r.twoCores().serverCpus())
                        .containsAll(CpuPinning.parseList(r.twoCores().harnessCpus()));
    }

    private record PerR(int runners, double value) {}

    private static List<PerR> values(List<Round> rounds, ToDoubleFunction<Round> value) {
        return rounds.stream()
                .map(r -> new PerR(r.runners(), value.applyAsDouble(r)))
                .toList();
    }

    private static Line perRound(List<PerR> values, DoublePredicate ok, String prefix, String unit) {
        String result = prefix
                + values.stream()
                        .map(v -> v.value() + unit + " (R = " + v.runners() + ")")
                        .collect(Collectors.joining(", "));
        return new Line("", "", result, values.stream().allMatch(v -> ok.test(v.value())));
    }

    private static Line named(String figure, String target, Line measured) {
        return new Line(figure, target, measured.result(), measured.met());
    }

    private static Line notHere(String figure, String target, String why) {
        return new Line(figure, target, why, null);
    }

    private static Line dispatch(String figure, double p50, double p99, Summary s) {
        String target = "≤ " + number(p50) + " ms / ≤ " + number(p99) + " ms";
        return new Line(
                figure,
                target,
                s.medianMs() + " / " + s.p99Ms() + " ms (n = " + s.count() + ")",
                s.medianMs() <= p50 && s.p99Ms() <= p99);
    }

    private static String number(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }

    /** The lines as the results file holds them, under "targets". */
    static List<Map<String, Object>> json(List<Line> lines) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Line l : lines) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("figure", l.figure());
            m.put("target", l.target());
            m.put("result", l.result());
            m.put("met", l.met());
            out.add(m);
        }
        return out;
    }

    static void print(List<Line> lines) {
        int figure = lines.stream().mapToInt(l -> l.figure().length()).max().orElse(10);
        int target = lines.stream().mapToInt(l -> l.target().length()).max().orElse(10);
        System.out.println("targets (docs/benchmarks.md, \"Current targets\"):");
        String format = "%-" + figure + "s | %-" + target + "s | %-7s | %s%n";
        System.out.printf(format, "figure", "target", "met?", "this run");
        System.out.println(
                "-".repeat(figure) + "-+-" + "-".repeat(target) + "-+-" + "-".repeat(7) + "-+-" + "-".repeat(40));
        for (Line l : lines) System.out.printf(format, l.figure(), l.target(), l.verdict(), l.result());
        System.out.println();
    }
}
