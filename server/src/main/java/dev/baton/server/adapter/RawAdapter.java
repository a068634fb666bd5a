package dev.baton.server.adapter;

import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;

/** The {@code raw} adapter (and the default): keeps each iteration's exit code and stdout unparsed. */
public final class RawAdapter implements Adapter {
    @Override
    public String name() {
        return "raw";
    }

    @Override
    public String parse(JobOutput output) {
        var iterations = Wire.mapper().createArrayNode();
        if (output.results() != null) {
            for (IterationResult r : output.results()) {
                var node = iterations.addObject();
                if (r.exitCode() != null) node.put("exit_code", r.exitCode());
                node.put("stdout", r.stdout());
            }
        }
        return iterations.toString();
    }
}
