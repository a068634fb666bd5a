package dev.baton.store;

import java.time.Instant;

/** One value of a metric's history with the report it came from (a change point's commit range needs them). */
public record HistoryValue(long reportId, String hash, double value, Instant at) {}
