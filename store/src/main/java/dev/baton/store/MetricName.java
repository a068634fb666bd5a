package dev.baton.store;

/** A benchmark and measure a project's judged metrics have used (the console's metrics page lists them). */
public record MetricName(String benchmark, String measure) {}
