package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The store's part for schedules (docs/api.md, "Schedules"): runs submitted on a cron, each
 * update a compare-and-set on the schedule's version.
 */
public interface Schedules {
    /** Inserts a new schedule (version 0); a taken name is a CONFLICT. */
    Schedule createSchedule(Schedule schedule);

    List<Schedule> listSchedules();

    Optional<Schedule> findSchedule(String uuid);

    /** Unpaused schedules whose next fire time is at or before {@code now}. */
    List<Schedule> dueSchedules(Instant now);

    /**
     * Compare-and-set of one schedule on its version (everything but uuid, name and created is
     * written; the version goes up by one); false when another change, or another node firing
     * the same occurrence, came first.
     */
    boolean updateSchedule(Schedule next);

    /** Deletes the schedule; false when there was none. */
    boolean deleteSchedule(String uuid);
}
