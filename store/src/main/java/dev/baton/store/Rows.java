package dev.baton.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.OrganizationUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;

/**
 * Row mapping and value encoding shared by both dialects. Times are stored as microseconds since
 * the epoch (both dialects' finest common precision), so an {@link Instant} read back is the
 * one written truncated to microseconds. A job's row is mapped by its store's {@link JobRows},
 * which holds the store's parsed configs.
 */
final class Rows {
    private Rows() {}

    static final String ORGANIZATION = "id, uuid, name, slug, plan, created, modified";
    static final String PROJECT = "id, uuid, organization_id, name, slug, created, modified";
    static final String RUNNER =
            "id, uuid, name, slug, last_heartbeat, created, modified, archived, quarantined, quarantine_reason, ephemeral,"
                    + " bound_job_id";
    static final String SPEC =
            "id, uuid, name, slug, architecture, cpu, memory, disk, network, created, modified, archived, queue_timeout,"
                    + " require_clean_fingerprint";
    static final String REPORT =
            "id, uuid, project_id, branch, testbed, adapter, results_file, start_time, end_time, results, error, created, modified";
    static final String JOB =
            "id, uuid, report_id, project_id, organization_id, source_ip, spec_id, config, timeout, priority, status,"
                    + " runner_id, lease, attempt, requeues, claimed, started, completed, last_heartbeat, last_billed_minute, error, not_before, created, modified,"
                    + " queue_timeout, error_code, decline_backoff_until, canary_runner_id";
    static final String ATTEMPT =
            "id, job_id, number, lease, runner_id, claimed, started, ended, outcome, decline_code, decline_reason, fingerprint, warm";

    static Long micros(Instant t) {
        return t == null ? null : ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }

    static Instant instant(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Instant.EPOCH.plus(v, ChronoUnit.MICROS);
    }

    static Long nullableLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }

    static Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }

    static UUID uuid(ResultSet rs) throws SQLException {
        return UUID.fromString(rs.getString("uuid"));
    }

    static String json(JobConfig config) {
        try {
            return Wire.mapper().writeValueAsString(config);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode job config", e);
        }
    }

    static JobConfig config(String json) {
        try {
            return Wire.mapper().readValue(json, JobConfig.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored job config is not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    static Organization organization(ResultSet rs) throws SQLException {
        return new Organization(
                rs.getLong("id"),
                new OrganizationUuid(uuid(rs)),
                rs.getString("name"),
                new Slug(rs.getString("slug")),
                PlanTier.ofPriority(rs.getInt("plan")),
                instant(rs, "created"),
                instant(rs, "modified"));
    }

    static Project project(ResultSet rs) throws SQLException {
        return new Project(
                rs.getLong("id"),
                new ProjectUuid(uuid(rs)),
                rs.getLong("organization_id"),
                rs.getString("name"),
                new Slug(rs.getString("slug")),
                instant(rs, "created"),
                instant(rs, "modified"));
    }

    static Runner runner(ResultSet rs) throws SQLException {
        return new Runner(
                rs.getLong("id"),
                new RunnerUuid(uuid(rs)),
                rs.getString("name"),
                new Slug(rs.getString("slug")),
                instant(rs, "last_heartbeat"),
                instant(rs, "created"),
                instant(rs, "modified"),
                instant(rs, "archived"),
                instant(rs, "quarantined"),
                rs.getString("quarantine_reason"),
                rs.getInt("ephemeral") == 1,
                boundJob(rs));
    }

    private static Long boundJob(ResultSet rs) throws SQLException {
        long id = rs.getLong("bound_job_id");
        return rs.wasNull() ? null : id;
    }

    static Spec spec(ResultSet rs) throws SQLException {
        return new Spec(
                rs.getLong("id"),
                new SpecUuid(uuid(rs)),
                rs.getString("name"),
                new Slug(rs.getString("slug")),
                Architecture.parse(rs.getString("architecture")),
                rs.getInt("cpu"),
                rs.getLong("memory"),
                rs.getLong("disk"),
                rs.getBoolean("network"),
                instant(rs, "created"),
                instant(rs, "modified"),
                instant(rs, "archived"),
                nullableInt(rs, "queue_timeout"),
                rs.getBoolean("require_clean_fingerprint"));
    }

    static Report report(ResultSet rs) throws SQLException {
        return new Report(
                rs.getLong("id"),
                new ReportUuid(uuid(rs)),
                rs.getLong("project_id"),
                rs.getString("branch"),
                rs.getString("testbed"),
                rs.getString("adapter"),
                rs.getString("results_file"),
                instant(rs, "start_time"),
                instant(rs, "end_time"),
                rs.getString("results"),
                rs.getString("error"),
                instant(rs, "created"),
                instant(rs, "modified"));
    }

    static Attempt attempt(ResultSet rs) throws SQLException {
        Integer outcome = nullableInt(rs, "outcome");
        return new Attempt(
                rs.getLong("id"),
                rs.getLong("job_id"),
                rs.getInt("number"),
                new LeaseId(rs.getString("lease")),
                rs.getLong("runner_id"),
                instant(rs, "claimed"),
                instant(rs, "started"),
                instant(rs, "ended"),
                outcome == null ? null : AttemptOutcome.ofCode(outcome),
                rs.getString("decline_code"),
                rs.getString("decline_reason"),
                rs.getString("fingerprint"),
                warm(nullableInt(rs, "warm")));
    }

    // The same mappings for Jdbi's cold paths: one mapping per type (a job's is JobRows.mapper).
    static final RowMapper<Organization> ORGANIZATION_MAPPER = (rs, ctx) -> organization(rs);
    static final RowMapper<Project> PROJECT_MAPPER = (rs, ctx) -> project(rs);
    static final RowMapper<Runner> RUNNER_MAPPER = (rs, ctx) -> runner(rs);
    static final RowMapper<Spec> SPEC_MAPPER = (rs, ctx) -> spec(rs);
    static final RowMapper<Report> REPORT_MAPPER = (rs, ctx) -> report(rs);
    static final RowMapper<Attempt> ATTEMPT_MAPPER = (rs, ctx) -> attempt(rs);

    private static Boolean warm(Integer stored) {
        return stored == null ? null : stored == 1;
    }
}
