package dev.baton.core.adapter;

/**
 * Turns one iteration's output text (stdout, or the collected file the run names) into Bencher
 * Metric Format (seed 001: the runner is a dumb executor; parsing happens on the server).
 * Throws {@link AdapterException} when the text does not parse; the caller records the message.
 */
public interface Adapter {
    /** The name a run gives in {@code adapter}. */
    String name();

    Metrics parse(String text);
}
