package dev.baton.store;

import dev.baton.protocol.id.ReportUuid;
import java.time.Instant;

/**
 * The result record of a run. For runner jobs start/end are placeholders (creation time) until
 * the adapter processes the output; {@code results} is the adapter's JSON (see
 * {@code ReportResults}: every iteration and their merge) and {@code error} why the output did
 * not parse. {@code resultsFile} names the collected file the adapter reads instead of stdout.
 */
public record Report(
        long id,
        ReportUuid uuid,
        long projectId,
        String branch,
        String testbed,
        String adapter,
        String resultsFile,
        Instant startTime,
        Instant endTime,
        String results,
        String error,
        Instant created,
        Instant modified) {}
