package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Schedules: runs submitted on a cron, each update a compare-and-set on its version. */
final class JdbcSchedules implements Schedules {
    private static final String SCHEDULE =
            "uuid, name, cron, timezone, run, paused, next_fire, version, last_fired, last_report, last_error, created";

    private final StoreContext context;

    JdbcSchedules(StoreContext context) {
        this.context = context;
    }

    private static Schedule schedule(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
            throws SQLException {
        return new Schedule(
                rs.getString("uuid"),
                rs.getString("name"),
                rs.getString("cron"),
                rs.getString("timezone"),
                rs.getString("run"),
                rs.getInt("paused") != 0,
                Rows.instant(rs, "next_fire"),
                rs.getLong("version"),
                Rows.instant(rs, "last_fired"),
                rs.getString("last_report"),
                rs.getString("last_error"),
                Rows.instant(rs, "created"));
    }

    @Override
    public Schedule createSchedule(Schedule s) {
        return context.unique(
                "schedule name '" + s.name() + "' is taken",
                () -> context.write(h -> {
                    h.createUpdate("INSERT INTO schedule (" + SCHEDULE
                                    + ") VALUES (:uuid, :name, :cron, :timezone, :run, :paused, :next, 0, :lastFired,"
                                    + " :lastReport, :lastError, :created)")
                            .bind("uuid", s.uuid())
                            .bind("name", s.name())
                            .bind("cron", s.cron())
                            .bind("timezone", s.timezone())
                            .bind("run", s.run())
                            .bind("paused", s.paused() ? 1 : 0)
                            .bind("next", micros(s.nextFire()))
                            .bind("lastFired", micros(s.lastFired()))
                            .bind("lastReport", s.lastReport())
                            .bind("lastError", s.lastError())
                            .bind("created", micros(s.created()))
                            .execute();
                    return s.withVersion(0);
                }));
    }

    @Override
    public List<Schedule> listSchedules() {
        return context.read(h -> h.createQuery("SELECT " + SCHEDULE + " FROM schedule ORDER BY name")
                .map(JdbcSchedules::schedule)
                .list());
    }

    @Override
    public Optional<Schedule> findSchedule(String uuid) {
        return context.read(h -> h.createQuery("SELECT " + SCHEDULE + " FROM schedule WHERE uuid = :uuid")
                .bind("uuid", uuid)
                .map(JdbcSchedules::schedule)
                .findOne());
    }

    @Override
    public List<Schedule> dueSchedules(Instant now) {
        return context.read(h -> h.createQuery("SELECT " + SCHEDULE
                        + " FROM schedule WHERE paused = 0 AND next_fire <= :now ORDER BY next_fire")
                .bind("now", micros(now))
                .map(JdbcSchedules::schedule)
                .list());
    }

    @Override
    public boolean updateSchedule(Schedule s) {
        return context.write(h -> h.createUpdate(
                                "UPDATE schedule SET cron = :cron, timezone = :timezone, run = :run, paused = :paused, next_fire = :next,"
                                        + " last_fired = :lastFired, last_report = :lastReport, last_error = :lastError, version = version + 1"
                                        + " WHERE uuid = :uuid AND version = :version")
                        .bind("uuid", s.uuid())
                        .bind("cron", s.cron())
                        .bind("timezone", s.timezone())
                        .bind("run", s.run())
                        .bind("paused", s.paused() ? 1 : 0)
                        .bind("next", micros(s.nextFire()))
                        .bind("lastFired", micros(s.lastFired()))
                        .bind("lastReport", s.lastReport())
                        .bind("lastError", s.lastError())
                        .bind("version", s.version())
                        .execute()
                == 1);
    }

    @Override
    public boolean deleteSchedule(String uuid) {
        return context.write(h -> h.createUpdate("DELETE FROM schedule WHERE uuid = :uuid")
                        .bind("uuid", uuid)
                        .execute()
                == 1);
    }
}
