package dev.baton.protocol.model;

import java.util.Map;

/** One iteration's output (seed 000): exit code, captured streams and collected files by path. */
public record IterationResult(Integer exitCode, String stdout, String stderr, Map<String, String> output) {}
