package dev.baton.server.adapter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import java.io.IOException;

/**
 * The {@code json} adapter: each iteration's stdout is a JSON object of metrics (Bencher Metric
 * Format: benchmark → measure → {value, lower_value, upper_value}). Results are the array of
 * those objects, one per iteration.
 */
public final class JsonAdapter implements Adapter {
    @Override
    public String name() {
        return "json";
    }

    @Override
    public String parse(JobOutput output) {
        if (output.results() == null || output.results().isEmpty()) throw new AdapterException("the job produced no iterations");
        ArrayNode iterations = Wire.mapper().createArrayNode();
        int index = 0;
        for (IterationResult r : output.results()) {
            String stdout = r.stdout() == null ? "" : r.stdout().strip();
            try {
                JsonNode node = Wire.mapper().readTree(stdout);
                if (node == null || !node.isObject()) throw new AdapterException("iteration " + index + ": stdout is not a JSON object");
                iterations.add(node);
            } catch (IOException e) {
                throw new AdapterException("iteration " + index + ": stdout is not valid JSON");
            }
            index++;
        }
        return iterations.toString();
    }
}
