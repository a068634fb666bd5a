package dev.baton.core.adapter;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What the adapter made of one iteration (counted from 0): its metrics, or why it could not
 * parse. Both fields are always written, so a client sees {@code "error": null} on success.
 */
public record IterationResults(
        int iteration,
        @JsonInclude(JsonInclude.Include.ALWAYS) Metrics results,
        @JsonInclude(JsonInclude.Include.ALWAYS) String error) {

    /**
     * Runs {@code adapter} on one iteration's text. Never throws: a parse error, and even a bug in
     * an adapter, becomes this iteration's error, so one bad output cannot stop the processing.
     */
    public static IterationResults parse(int iteration, Adapter adapter, String text) {
        try {
            return new IterationResults(iteration, adapter.parse(text), null);
        } catch (AdapterException e) {
            return failed(iteration, e.getMessage());
        } catch (RuntimeException e) {
            return failed(iteration, "the adapter failed: " + e);
        }
    }

    public static IterationResults failed(int iteration, String error) {
        return new IterationResults(iteration, null, error);
    }

    public boolean parsed() {
        return error == null;
    }
}
