package dev.baton.protocol.model;

import java.util.List;

/** The stored output of one attempt of a job at {project}/output/v1/jobs/{job}/attempts/{attempt}: per-iteration results and, on failure, an error. */
public record JobOutput(List<IterationResult> results, String error) {}
