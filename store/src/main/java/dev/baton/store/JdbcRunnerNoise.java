package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runners' noise calibrations (V34), the same statements on both dialects. */
final class JdbcRunnerNoise implements RunnerNoise {
    private static final String COLUMNS = "runner_id, measured, cpu_cv, memory_cv, file_cv, repetitions, fingerprint";

    /** The calibration schedule's row in {@code pool_scaler_lease} (the scaler's is "scaler"). */
    private static final String LEASE = "noise_calibration";

    private final StoreContext context;

    JdbcRunnerNoise(StoreContext context) {
        this.context = context;
    }

    @Override
    public boolean recordNoise(long runnerId, NoiseReading r) {
        return context.write(h -> h.createUpdate("INSERT INTO runner_noise (" + COLUMNS
                                + ") VALUES (:runner, :measured, :cpu, :memory, :file, :repetitions, :fingerprint)"
                                + " ON CONFLICT (runner_id, measured) DO NOTHING")
                        .bind("runner", runnerId)
                        .bind("measured", micros(r.measured()))
                        .bind("cpu", r.cpuCv())
                        .bind("memory", r.memoryCv())
                        .bind("file", r.fileCv())
                        .bind("repetitions", r.repetitions())
                        .bind("fingerprint", r.fingerprint())
                        .execute())
                == 1;
    }

    @Override
    public List<NoiseReading> noiseHistory(long runnerId, int limit) {
        return context.read(h -> h.createQuery("SELECT " + COLUMNS
                        + " FROM runner_noise WHERE runner_id = :runner ORDER BY measured DESC LIMIT :limit")
                .bind("runner", runnerId)
                .bind("limit", limit)
                .map((rs, ctx) -> reading(rs))
                .list());
    }

    @Override
    public Map<Long, List<NoiseReading>> noiseHistories(int perRunner) {
        // A window per runner would do it in SQL; the rows are few (a calibration per agent start),
        // so reading them newest first and keeping the first perRunner of each is as cheap and
        // needs no dialect difference.
        return context.read(h -> {
            Map<Long, List<NoiseReading>> byRunner = new LinkedHashMap<>();
            h.createQuery("SELECT " + COLUMNS + " FROM runner_noise ORDER BY runner_id, measured DESC")
                    .map((rs, ctx) -> Map.entry(rs.getLong("runner_id"), reading(rs)))
                    .forEach(e -> {
                        List<NoiseReading> list = byRunner.computeIfAbsent(e.getKey(), k -> new ArrayList<>());
                        if (list.size() < perRunner) list.add(e.getValue());
                    });
            return byRunner;
        });
    }

    @Override
    public boolean holdsAttempt(long runnerId) {
        return context.read(
                h -> h.createQuery("SELECT 1 FROM job_attempt WHERE runner_id = :runner AND ended IS NULL LIMIT 1")
                        .bind("runner", runnerId)
                        .mapTo(Integer.class)
                        .findOne()
                        .isPresent());
    }

    @Override
    public boolean takeCalibrationLease(String node, Instant now, Instant until) {
        return context.write(h -> {
            // As the pool scaler's lease (JdbcPools): a compare-and-set on the named row, inserted once.
            int taken = h.createUpdate("UPDATE pool_scaler_lease SET node = :node, expires = :until"
                            + " WHERE name = :name AND (node = :node OR expires < :now)")
                    .bind("node", node)
                    .bind("until", micros(until))
                    .bind("now", micros(now))
                    .bind("name", LEASE)
                    .execute();
            if (taken > 0) return true;
            return h.createUpdate("INSERT INTO pool_scaler_lease (name, node, expires) VALUES (:name, :node, :until)"
                                    + " ON CONFLICT (name) DO NOTHING")
                            .bind("name", LEASE)
                            .bind("node", node)
                            .bind("until", micros(until))
                            .execute()
                    > 0;
        });
    }

    private static NoiseReading reading(ResultSet rs) throws SQLException {
        return new NoiseReading(
                Rows.instant(rs, "measured"),
                cv(rs, "cpu_cv"),
                cv(rs, "memory_cv"),
                cv(rs, "file_cv"),
                rs.getInt("repetitions"),
                rs.getString("fingerprint"));
    }

    private static Double cv(ResultSet rs, String column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }
}
