package dev.baton.server.adapter;

import dev.baton.protocol.model.JobOutput;

/**
 * Turns a job's stored output into the report's results (seed 001: the runner is a dumb
 * executor; parsing happens on the server). Throws {@link AdapterException} when the output does
 * not parse: the report records the error, the job is still processed.
 */
public interface Adapter {
    String name();

    /** Returns the report's results as JSON text. */
    String parse(JobOutput output);
}
