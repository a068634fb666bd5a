package dev.baton.store;

import dev.baton.core.cache.DirectMappedCache;

/**
 * The formats of the reports this node created lately, so that result processing does not read
 * the report back (issue 13: one read per job; docs/decisions/0020-pending-knowledge.md). A
 * report's adapter and results file never change and no report row is deleted (reports go only
 * with their project, and no code path deletes a project), so an id never comes to mean another
 * report and an entry needs no invalidation, on any node. Direct-mapped by id, like
 * {@link JobConfigs}: a report whose slot a later one took is read again.
 */
final class ReportFormats {
    private final DirectMappedCache<ReportFormat> formats;

    /** @param size slots, a power of two; more than the jobs usually between submission and processing */
    ReportFormats(int size) {
        this.formats = new DirectMappedCache<>(size);
    }

    /** Call with a report as committed. */
    void put(Report report) {
        formats.put(report.id(), ReportFormat.of(report));
    }

    /** The format of report {@code id} if this node has it, else null. */
    ReportFormat get(long id) {
        return formats.get(id);
    }
}
