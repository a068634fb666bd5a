package dev.baton.protocol.model;

import java.util.List;

/** The stored output of one attempt of a job at {project}/output/v2/{shard}/{job}.{attempt} ({shard}: the job UUID's last two hex digits): per-iteration results and, on failure, an error. */
public record JobOutput(List<IterationResult> results, String error) {}
