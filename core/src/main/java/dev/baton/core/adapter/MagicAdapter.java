package dev.baton.core.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Optional;

/**
 * {@code magic}: finds which adapter the output is for, then parses with it. JSON output is
 * told apart by its top-level shape: an array of runs with {@code primaryMetric} is JMH; an object
 * with {@code context} and {@code benchmarks} is Google Benchmark; with {@code benchmarks} and
 * {@code machine_info} (or benchmarks with {@code stats}) pytest-benchmark; with {@code results}
 * whose entries have {@code command} and {@code mean} hyperfine; any other object of benchmarks
 * of measures with a {@code value} is BMF. Text with a Go result line is {@code go_bench}; text
 * with a Criterion {@code time: […]} line is {@code rust_criterion}. Anything else is an error
 * naming the adapters tried. Meant for exploring: a run that names its adapter is never misread.
 */
public final class MagicAdapter implements Adapter {
    public static final String NAME = "magic";

    private final List<JsonFormat> json = List.of(
            new JmhAdapter(),
            new GoogleBenchmarkAdapter(),
            new PytestBenchmarkAdapter(),
            new HyperfineAdapter(),
            new JsonAdapter());
    private final GoBenchAdapter go = new GoBenchAdapter();
    private final CriterionAdapter criterion = new CriterionAdapter();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Metrics parse(String text) {
        Adapter found = detect(text)
                .orElseThrow(
                        () -> new AdapterException(
                                "no adapter recognises this output (tried java_jmh, cpp_google, python_pytest, shell_hyperfine, json, go_bench, rust_criterion)"));
        return found.parse(text);
    }

    /** The adapter whose tool wrote {@code text}, if any. */
    public Optional<Adapter> detect(String text) {
        if (text == null || text.isBlank()) return Optional.empty();
        String s = text.strip();
        if (s.startsWith("{") || s.startsWith("[")) {
            JsonNode document;
            try {
                document = JsonFormat.read(s);
            } catch (AdapterException e) {
                document = null; // not JSON after all: maybe text that starts with a bracket
            }
            if (document != null) {
                for (JsonFormat f : json) if (f.recognizes(document)) return Optional.of(f);
                return Optional.empty();
            }
        }
        if (GoBenchAdapter.recognizes(s)) return Optional.of(go);
        if (CriterionAdapter.recognizes(s)) return Optional.of(criterion);
        return Optional.empty();
    }
}
