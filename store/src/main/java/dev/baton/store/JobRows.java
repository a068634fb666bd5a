package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.nullableInt;
import static dev.baton.store.Rows.nullableLong;
import static dev.baton.store.Rows.uuid;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * Maps a job's row, its config parsed once per job rather than on every read of the row
 * ({@link JobConfigs}). One per store: the parsed configs are the store's, never another's.
 */
final class JobRows implements Sql.Reader<Job> {
    /** Slots of parsed configs: more than the jobs usually in flight at once. */
    private static final int CONFIGS = 4096;

    private final JobConfigs configs;
    /** The same mapping for Jdbi's cold paths. */
    final RowMapper<Job> mapper = (rs, ctx) -> read(rs);

    JobRows() {
        this(new JobConfigs(CONFIGS));
    }

    JobRows(JobConfigs configs) {
        this.configs = configs;
    }

    @Override
    public Job read(ResultSet rs) throws SQLException {
        String lease = rs.getString("lease");
        long id = rs.getLong("id");
        return new Job(
                id,
                new JobUuid(uuid(rs)),
                rs.getLong("report_id"),
                rs.getLong("project_id"),
                rs.getLong("organization_id"),
                rs.getString("source_ip"),
                rs.getLong("spec_id"),
                configs.config(id, rs.getString("config")),
                rs.getInt("timeout"),
                rs.getInt("priority"),
                JobStatus.ofCode(rs.getInt("status")),
                nullableLong(rs, "runner_id"),
                lease == null ? null : new LeaseId(lease),
                rs.getInt("attempt"),
                rs.getInt("requeues"),
                instant(rs, "claimed"),
                instant(rs, "started"),
                instant(rs, "completed"),
                instant(rs, "last_heartbeat"),
                nullableInt(rs, "last_billed_minute"),
                rs.getString("error"),
                instant(rs, "not_before"),
                instant(rs, "created"),
                instant(rs, "modified"),
                nullableInt(rs, "queue_timeout"),
                rs.getString("error_code"),
                instant(rs, "decline_backoff_until"),
                nullableLong(rs, "canary_runner_id"));
    }
}
