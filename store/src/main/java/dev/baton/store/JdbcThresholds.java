package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.Rows.nullableDouble;
import static dev.baton.store.Rows.nullableInt;
import static dev.baton.store.Rows.nullableLong;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;
import org.jdbi.v3.core.statement.Update;

/** {@link Thresholds} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcThresholds implements Thresholds {
    private static final String THRESHOLD =
            "id, uuid, project_id, branch, testbed, spec_id, measure, benchmark, model, lower_boundary,"
                    + " upper_boundary, max_samples, max_days, min_samples, created, modified, deleted";

    private static final RowMapper<Threshold> THRESHOLD_MAPPER = (rs, ctx) -> new Threshold(
            rs.getLong("id"),
            rs.getString("uuid"),
            rs.getLong("project_id"),
            new ThresholdRule(
                    rs.getString("branch"),
                    rs.getString("testbed"),
                    nullableLong(rs, "spec_id"),
                    rs.getString("measure"),
                    rs.getString("benchmark"),
                    rs.getString("model"),
                    nullableDouble(rs, "lower_boundary"),
                    nullableDouble(rs, "upper_boundary"),
                    nullableInt(rs, "max_samples"),
                    nullableInt(rs, "max_days"),
                    rs.getInt("min_samples")),
            instant(rs, "created"),
            instant(rs, "modified"),
            instant(rs, "deleted"));
    private final StoreContext context;

    JdbcThresholds(StoreContext context) {
        this.context = context;
    }

    @Override
    public Threshold create(long projectId, ThresholdRule rule, Instant now) {
        return context.write(h -> {
            Query insert = h.createQuery(
                    "INSERT INTO threshold (uuid, project_id, branch, testbed, spec_id, measure, benchmark, model,"
                            + " lower_boundary, upper_boundary, max_samples, max_days, min_samples, created, modified) VALUES (:uuid, :project,"
                            + " :branch, :testbed, :spec, :measure, :benchmark, :model, :lower, :upper, :maxSamples, :maxDays, :minSamples, :now, :now) RETURNING id");
            bindRule(insert, rule)
                    .bind("uuid", UUID.randomUUID().toString())
                    .bind("project", projectId)
                    .bind("now", micros(now));
            long id = insert.mapTo(Long.class).one();
            return h.createQuery("SELECT " + THRESHOLD + " FROM threshold WHERE id = :id")
                    .bind("id", id)
                    .map(THRESHOLD_MAPPER)
                    .one();
        });
    }

    private static <T extends org.jdbi.v3.core.statement.SqlStatement<T>> T bindRule(T s, ThresholdRule r) {
        return s.bind("branch", r.branch())
                .bind("testbed", r.testbed())
                .bind("spec", r.specId())
                .bind("measure", r.measure())
                .bind("benchmark", r.benchmark())
                .bind("model", r.model())
                .bind("lower", r.lowerBoundary())
                .bind("upper", r.upperBoundary())
                .bind("maxSamples", r.maxSamples())
                .bind("maxDays", r.maxDays())
                .bind("minSamples", r.minSamples());
    }

    @Override
    public List<Threshold> list(long projectId) {
        // Plain JDBC, as the next read: judging runs both for every processed report.
        return context.readPlain(c ->
                context.statements.on(c, THRESHOLDS).bind("p", projectId).list(rs -> THRESHOLD_MAPPER.map(rs, null)));
    }

    private static final String THRESHOLDS =
            "SELECT " + THRESHOLD + " FROM threshold WHERE project_id = :p AND deleted IS NULL ORDER BY id";

    @Override
    public Optional<Threshold> find(long projectId, String uuid) {
        return context.read(h -> h.createQuery("SELECT " + THRESHOLD
                        + " FROM threshold WHERE project_id = :p AND uuid = :uuid AND deleted IS NULL")
                .bind("p", projectId)
                .bind("uuid", uuid)
                .map(THRESHOLD_MAPPER)
                .findOne());
    }

    @Override
    public Optional<Threshold> update(long projectId, String uuid, ThresholdRule rule, Instant now) {
        return context.write(h -> {
            Update update = h.createUpdate(
                    "UPDATE threshold SET branch = :branch, testbed = :testbed, spec_id = :spec, measure = :measure,"
                            + " benchmark = :benchmark, model = :model, lower_boundary = :lower, upper_boundary = :upper, max_samples = :maxSamples,"
                            + " max_days = :maxDays, min_samples = :minSamples, modified = :now WHERE project_id = :p AND uuid = :uuid AND deleted IS NULL");
            int n = bindRule(update, rule)
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .bind("now", micros(now))
                    .execute();
            if (n == 0) return Optional.<Threshold>empty();
            return h.createQuery("SELECT " + THRESHOLD + " FROM threshold WHERE project_id = :p AND uuid = :uuid")
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .map(THRESHOLD_MAPPER)
                    .findOne();
        });
    }

    @Override
    public boolean delete(long projectId, String uuid, Instant now) {
        return context.write(h -> h.createUpdate(
                                "UPDATE threshold SET deleted = :now, modified = :now WHERE project_id = :p AND uuid = :uuid"
                                        + " AND deleted IS NULL")
                        .bind("p", projectId)
                        .bind("uuid", uuid)
                        .bind("now", micros(now))
                        .execute()
                > 0);
    }

    @Override
    public List<String> measuresSeen(long projectId) {
        return context.read(
                h -> h.createQuery("SELECT DISTINCT measure FROM metric WHERE project_id = :p ORDER BY measure")
                        .bind("p", projectId)
                        .mapTo(String.class)
                        .list());
    }
}
