package dev.baton.core.adapter;

import java.util.List;
import java.util.Optional;

/** The adapters a run may name; {@link #DEFAULT} when it names none. */
public final class Adapters {
    /** Bencher Metric Format on the output, like Bencher's {@code json} (the API's one default). */
    public static final String DEFAULT = JsonAdapter.NAME;

    private final List<Adapter> all = List.of(
            new JsonAdapter(),
            new JmhAdapter(),
            new GoBenchAdapter(),
            new CriterionAdapter(),
            new HyperfineAdapter(),
            new PytestBenchmarkAdapter(),
            new GoogleBenchmarkAdapter(),
            new MagicAdapter(),
            new RawAdapter());

    /** The named adapter ({@link #DEFAULT} for a null or blank name). */
    public Optional<Adapter> find(String name) {
        String wanted = name == null || name.isBlank() ? DEFAULT : name;
        return all.stream().filter(a -> a.name().equals(wanted)).findFirst();
    }

    public List<String> names() {
        return all.stream().map(Adapter::name).toList();
    }
}
