package dev.baton.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.store.Schedule;
import java.time.Instant;

/**
 * A schedule as the API shows it. {@code state}: {@code active}, {@code paused}, or {@code done}
 * (a one-off run that has fired). {@code last_report} is the report of the last run it submitted,
 * {@code last_error} why the last submission was refused (the run body no longer validates).
 */
record ScheduleView(
        String uuid,
        String name,
        String cron,
        String timezone,
        JsonNode run,
        String state,
        Instant nextFire,
        Instant lastFired,
        String lastReport,
        String lastError,
        Instant created) {

    static ScheduleView of(Schedule s, JsonNode run) {
        String state = s.nextFire() == null ? "done" : s.paused() ? "paused" : "active";
        return new ScheduleView(
                s.uuid(),
                s.name(),
                s.cron(),
                s.timezone(),
                run,
                state,
                s.nextFire(),
                s.lastFired(),
                s.lastReport(),
                s.lastError(),
                s.created());
    }
}
