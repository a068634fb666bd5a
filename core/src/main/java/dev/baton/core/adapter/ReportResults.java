package dev.baton.core.adapter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.util.List;
import java.util.Optional;

/**
 * A report's parsed results as stored in its {@code results} column: every iteration's own
 * results (or error) and the merged view. {@code results} merges the iterations that parsed by
 * {@link Metrics#merge} (per benchmark and measure: one iteration as it is, several as the mean
 * with min/max bounds); it is null when none parsed.
 */
public record ReportResults(Metrics results, List<IterationResults> iterations) {

    public ReportResults {
        iterations = List.copyOf(iterations);
    }

    public static ReportResults of(List<IterationResults> iterations) {
        List<Metrics> parsed = iterations.stream()
                .filter(IterationResults::parsed)
                .map(IterationResults::results)
                .toList();
        return new ReportResults(parsed.isEmpty() ? null : Metrics.merge(parsed), iterations);
    }

    /**
     * As {@link #of(List)}, merging only the iterations {@code merged} accepts: a paired run's
     * report merges its candidate's iterations (issue 45), so its {@code results} and the
     * thresholds that judge them are the candidate's; the baseline's stay in {@code iterations}.
     */
    public static ReportResults of(List<IterationResults> iterations, java.util.function.IntPredicate merged) {
        List<Metrics> parsed = iterations.stream()
                .filter(IterationResults::parsed)
                .filter(i -> merged.test(i.iteration()))
                .map(IterationResults::results)
                .toList();
        return new ReportResults(parsed.isEmpty() ? null : Metrics.merge(parsed), iterations);
    }

    /** The report's error: the first iteration that did not parse, or none. */
    public Optional<String> error() {
        if (iterations.isEmpty()) return Optional.of("the job produced no iterations");
        return iterations.stream()
                .filter(i -> !i.parsed())
                .findFirst()
                .map(i -> "iteration " + i.iteration() + ": " + i.error());
    }

    public String toJson() {
        return Wire.encode(this);
    }

    /**
     * Reads the stored column. Reports written before iterations were kept hold a bare array of
     * BMF documents; those come back as the merge of that array with one iteration per document.
     */
    public static Optional<ReportResults> fromJson(String json) {
        if (json == null) return Optional.empty();
        try {
            JsonNode node = Wire.mapper().readTree(json);
            if (node != null && node.isObject() && node.has("iterations"))
                return Optional.of(Wire.mapper().treeToValue(node, ReportResults.class));
            if (node != null && node.isArray()) {
                List<IterationResults> iterations = new java.util.ArrayList<>();
                for (JsonNode doc : node)
                    iterations.add(IterationResults.parse(iterations.size(), new JsonAdapter(), doc.toString()));
                return Optional.of(of(iterations));
            }
            return Optional.empty();
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
    }
}
