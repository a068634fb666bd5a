package dev.baton.store;

import java.time.Instant;

/**
 * A report to insert: direct mode carries results and real times; runner mode placeholders.
 * {@code resultsFile}, for runner runs only, is the collected file the adapter reads instead of
 * stdout (null: stdout).
 */
public record NewReport(
        long projectId,
        String branch,
        String testbed,
        String adapter,
        String resultsFile,
        Instant startTime,
        Instant endTime,
        String results) {

    /** A report whose adapter reads stdout. */
    public NewReport(
            long projectId,
            String branch,
            String testbed,
            String adapter,
            Instant startTime,
            Instant endTime,
            String results) {
        this(projectId, branch, testbed, adapter, null, startTime, endTime, results);
    }
}
