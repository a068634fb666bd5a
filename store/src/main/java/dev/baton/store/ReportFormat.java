package dev.baton.store;

/**
 * What result processing needs of a report: its adapter and the collected file the adapter reads
 * instead of stdout (null for stdout). Both are written with the report and never change.
 */
public record ReportFormat(String adapter, String resultsFile) {
    public static ReportFormat of(Report report) {
        return new ReportFormat(report.adapter(), report.resultsFile());
    }
}
