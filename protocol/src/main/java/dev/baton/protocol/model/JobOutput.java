package dev.baton.protocol.model;

import java.util.List;

/** The stored output of a job at {project}/output/v0/jobs/{job}: per-iteration results and, on failure, an error. */
public record JobOutput(List<IterationResult> results, String error) {}
