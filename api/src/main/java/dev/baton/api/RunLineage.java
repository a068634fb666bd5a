package dev.baton.api;

import dev.baton.store.Store;
import dev.baton.store.StoreException;
import dev.baton.web.http.ApiException;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Where a run sits in the project's git history (docs/alerts.md, "Baseline"): the commit it
 * measured ({@code hash}) and, for a new branch, the branch it started from
 * ({@code start_point}, optionally at the report of {@code start_point_hash}), whose history
 * judges the branch's first runs.
 */
record RunLineage(String hash, String startPoint, String startPointHash, Long startReport) {
    private static final Pattern HASH = Pattern.compile("[0-9a-f]{7,64}");

    /**
     * Checked from the request, the start point's report looked up; a malformed field or a
     * commit the start point never measured is a 400 before anything is stored.
     */
    static RunLineage of(RunRequest r, Store store, long projectId) {
        String hash = hash("hash", r.hash());
        String startPoint = r.startPoint() == null ? null : RunValidator.label("start_point", r.startPoint(), null);
        String startPointHash = hash("start_point_hash", r.startPointHash());
        if (startPointHash != null && startPoint == null) {
            throw ApiException.invalidField(
                    "start_point_hash", "start_point_hash needs start_point (the branch the hash is on)");
        }
        Long startReport = null;
        if (startPointHash != null) {
            startReport = store.alerts()
                    .latestReport(projectId, startPoint, startPointHash)
                    .orElseThrow(() -> ApiException.invalidField(
                            "start_point_hash",
                            "no report of branch '" + startPoint + "' measured commit " + startPointHash));
        }
        return new RunLineage(hash, startPoint, startPointHash, startReport);
    }

    private static String hash(String field, String raw) {
        if (raw == null) return null;
        String h = raw.toLowerCase(java.util.Locale.ROOT);
        if (!HASH.matcher(h).matches())
            throw ApiException.invalidField(field, field + " must be a git commit hash: 7 to 64 hexadecimal digits");
        return h;
    }

    /**
     * Records the branch's start point (kept if it has one already), just before the run is stored.
     */
    void recordStartPoint(Store store, long projectId, String branch, Instant now) {
        if (startPoint == null || startPoint.equals(branch)) return;
        try {
            store.alerts().setStartPointIfAbsent(projectId, branch, startPoint, startReport, now);
        } catch (StoreException e) {
            throw ApiException.invalidField("start_point", e.getMessage());
        }
    }

    /** Writes the hash on the stored report (before it is judged). */
    void recordHash(Store store, long reportId) {
        if (hash != null) store.alerts().setReportHash(reportId, hash);
    }
}
