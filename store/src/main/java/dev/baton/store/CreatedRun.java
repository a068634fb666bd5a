package dev.baton.store;

/**
 * What {@link Runs#createRun} stored: the report and its pending job, both as their INSERTs
 * returned them, so a submission answers without reading either back (issue 13).
 */
public record CreatedRun(Report report, Job job) {}
