package dev.baton.core.adapter;

/**
 * {@code raw}: no parsing. For jobs whose output is not benchmark data (the output itself stays
 * on the job); every iteration yields no metrics, and nothing can fail to parse.
 */
public final class RawAdapter implements Adapter {
    public static final String NAME = "raw";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Metrics parse(String text) {
        return Metrics.EMPTY;
    }
}
