package dev.baton.router.policy;

import dev.baton.protocol.id.ProjectUuid;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Runner time per project as the router saw it: attempts that ended plus those in hand now, from
 * the moment the router gave the job to a runner (its slot is the project's from then on) to the
 * runner's final word. An attempt the runner declined or lost before starting counts nothing.
 * This is for sharing runners, not billing: the server still bills from {@code running} only.
 * Touched only by the router's event loop.
 */
public final class ProjectUsage {
    private final Map<ProjectUuid, Duration> ended = new HashMap<>();
    private final Map<Object, Running> running = new HashMap<>();

    private record Running(ProjectUuid project, Instant since) {}

    public void started(Object attempt, ProjectUuid project, Instant now) {
        if (project != null) running.putIfAbsent(attempt, new Running(project, now));
    }

    public void ended(Object attempt, Instant now) {
        Running r = running.remove(attempt);
        if (r != null) ended.merge(r.project(), Duration.between(r.since(), now), Duration::plus);
    }

    /** The attempt never ran here (declined, lost before it started): its time is nobody's. */
    public void forget(Object attempt) {
        running.remove(attempt);
    }

    public double seconds(ProjectUuid project, Instant now) {
        Duration total = ended.getOrDefault(project, Duration.ZERO);
        for (Running r : running.values()) {
            if (r.project().equals(project)) total = total.plus(Duration.between(r.since(), now));
        }
        return total.toNanos() / 1e9;
    }

    public Map<ProjectUuid, Double> snapshot(Instant now) {
        Map<ProjectUuid, Double> out = new HashMap<>();
        for (ProjectUuid p : ended.keySet()) out.put(p, seconds(p, now));
        for (Running r : running.values()) out.put(r.project(), seconds(r.project(), now));
        return out;
    }
}
