package dev.baton.store;

/**
 * What a threshold judges and how, as stored: {@code branch} and {@code benchmark} null mean
 * every one, {@code specId} null any spec. {@code model} is the model's name and the boundaries
 * its parameters (a confidence level, a factor, a fraction or a fixed value: docs/alerts.md); the
 * alerts module checks them before they get here.
 */
public record ThresholdRule(
        String branch,
        String testbed,
        Long specId,
        String measure,
        String benchmark,
        String model,
        Double lowerBoundary,
        Double upperBoundary,
        Integer maxSamples,
        Integer maxDays,
        int minSamples) {}
