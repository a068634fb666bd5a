package dev.baton.store;

import java.time.Instant;

/**
 * An OJS cron schedule: when it next fires, and the rest (expression, time zone, job template,
 * the last job it enqueued) as the JSON {@code document}. {@code version} is what a change expects.
 */
public record OjsCron(String name, Instant nextRun, long version, String document) {}
