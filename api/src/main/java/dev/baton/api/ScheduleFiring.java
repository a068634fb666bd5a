package dev.baton.api;

import dev.baton.core.schedule.CronExpression;
import dev.baton.store.Schedule;
import dev.baton.store.Store;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits the runs of due schedules. Every node of a cluster runs this; for each due occurrence
 * the nodes race a compare-and-set of the schedule's version that also moves its next fire time
 * on, and only the winner submits the run, so each occurrence is submitted once. Occurrences
 * missed while no node was running are folded into one run, submitted at the first sweep after
 * (the next fire time is then computed from that moment, not from the missed ones).
 */
final class ScheduleFiring {
    private static final Logger LOG = LoggerFactory.getLogger(ScheduleFiring.class);

    private final Store store;
    private final Clock clock;
    private final RunRoutes runs;

    ScheduleFiring(Store store, Clock clock, RunRoutes runs) {
        this.store = store;
        this.clock = clock;
        this.runs = runs;
    }

    /** The next fire time after {@code after}; null for a one-off (it fires once). */
    static Instant nextAfter(Schedule s, Instant after) {
        return s.cron() == null ? null : CronExpression.parse(s.cron()).next(after, CronExpression.zone(s.timezone()));
    }

    /** Fires every due schedule once; returns how many runs this node submitted. */
    int fireDue() {
        int fired = 0;
        for (Schedule due : store.schedules().dueSchedules(clock.instant())) {
            Instant now = clock.instant();
            Schedule claimed = new Schedule(
                    due.uuid(),
                    due.name(),
                    due.cron(),
                    due.timezone(),
                    due.run(),
                    due.paused(),
                    nextAfter(due, now),
                    due.version(),
                    now,
                    due.lastReport(),
                    due.lastError(),
                    due.created());
            // The compare-and-set: another node (or a pause) came first, and this one does nothing.
            if (!store.schedules().updateSchedule(claimed)) continue;
            fired++;
            String report = null;
            String error = null;
            try {
                RunRequest request = Json.decode(due.run().getBytes(StandardCharsets.UTF_8), RunRequest.class);
                report = runs.submit(request, "schedule:" + due.uuid())
                        .report()
                        .uuid()
                        .toString();
            } catch (ApiException e) {
                // The run no longer validates (its project or spec went away): kept on the schedule.
                error = e.getMessage();
            } catch (RuntimeException e) {
                LOG.warn("schedule {} could not submit its run", due.name(), e);
                error = "internal error: " + e.getMessage();
            }
            recordOutcome(claimed.withVersion(claimed.version() + 1), report, error);
        }
        return fired;
    }

    /** Writes what the firing led to; a concurrent pause or delete in between wins (the outcome is not important enough to retry for). */
    private void recordOutcome(Schedule fired, String report, String error) {
        store.schedules()
                .updateSchedule(new Schedule(
                        fired.uuid(),
                        fired.name(),
                        fired.cron(),
                        fired.timezone(),
                        fired.run(),
                        fired.paused(),
                        fired.nextFire(),
                        fired.version(),
                        fired.lastFired(),
                        report != null ? report : fired.lastReport(),
                        error,
                        fired.created()));
    }
}
