package dev.baton.router.policy;

import dev.baton.protocol.id.ProjectUuid;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * How the router chooses work (docs/router.md). A policy acts at two points: which projects the
 * router asks the server to prefer when it claims ({@link #preferProjects}), and, when it holds
 * several jobs a free runner could take, which goes first ({@link #order}).
 */
public sealed interface SchedulingPolicy permits FirstCome, FairShare {
    /** Projects to prefer at the next claim, most preferred first; empty for the server's own order. */
    List<ProjectUuid> preferProjects(ProjectUsage usage, Instant now);

    /** The order in which held jobs are offered to a free runner (projects of the jobs are given). */
    Comparator<ProjectUuid> order(ProjectUsage usage, Instant now);

    /** Jobs to ask the server for in one {@code ready}: all free slots, or one at a time to re-rank between claims. */
    int slotsPerAsk(int free);

    String describe();
}
