package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Handle;

/**
 * Heartbeat times written many rows at a time: a node's heartbeats of 10,000 runners are 10
 * statements, not 10,000. Used by the runner and node parts and by SQLite's job heartbeats.
 */
final class LatestTimes {
    /** Rows of one latest-time statement. */
    static final int ROWS_PER_STATEMENT = 1000;

    private LatestTimes() {}

    /**
     * Sets {@code last_heartbeat} of each row keyed by {@code key} to its time (never backwards),
     * in one {@code UPDATE … FROM (VALUES …)} per {@value #ROWS_PER_STATEMENT} rows. Both
     * dialects name a VALUES list's columns column1, column2 (SQLite has UPDATE … FROM since 3.33).
     */
    static <K> int write(
            Statements statements, Handle h, String table, String key, String where, Map<K, Instant> times) {
        List<Map.Entry<K, Instant>> rows = new ArrayList<>(times.entrySet());
        int updated = 0;
        for (int from = 0; from < rows.size(); from += ROWS_PER_STATEMENT) {
            List<Map.Entry<K, Instant>> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_STATEMENT));
            StringBuilder values = new StringBuilder();
            for (int i = 0; i < chunk.size(); i++)
                values.append(i == 0 ? "" : ", ")
                        .append("(:k")
                        .append(i)
                        .append(", :t")
                        .append(i)
                        .append(")");
            Sql u = statements.once(
                    h,
                    "UPDATE " + table + " SET last_heartbeat = v.t"
                            + " FROM (SELECT column1 AS k, column2 AS t FROM (VALUES " + values + ") AS x) AS v"
                            + " WHERE " + table + "." + key + " = v.k" + where
                            + " AND (" + table + ".last_heartbeat IS NULL OR " + table + ".last_heartbeat < v.t)");
            for (int i = 0; i < chunk.size(); i++) {
                Object k = chunk.get(i).getKey();
                if (k instanceof Long id) u.bind("k" + i, id);
                else u.bind("k" + i, k.toString());
                u.bind("t" + i, micros(chunk.get(i).getValue()));
            }
            updated += u.execute();
        }
        return updated;
    }
}
