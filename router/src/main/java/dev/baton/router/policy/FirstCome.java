package dev.baton.router.policy;

import dev.baton.protocol.id.ProjectUuid;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/** The server's order (priority, then age), unchanged: the router only passes jobs on. */
public record FirstCome() implements SchedulingPolicy {
    @Override
    public List<ProjectUuid> preferProjects(ProjectUsage usage, Instant now) {
        return List.of();
    }

    @Override
    public Comparator<ProjectUuid> order(ProjectUsage usage, Instant now) {
        return (a, b) -> 0; // held jobs keep the order they arrived in
    }

    @Override
    public int slotsPerAsk(int free) {
        return free;
    }

    @Override
    public String describe() {
        return "first-come";
    }
}
