package dev.baton.router;

import dev.baton.protocol.id.JobUuid;
import dev.baton.router.policy.ProjectUsage;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the router holds, shared by its parts ({@link UpstreamLink}, {@link DownstreamRunners},
 * {@link HeldJobs}): the runners behind it, the jobs it holds for them, and how much each project
 * ran (the scheduling policy's input). Touched only by the event loop, so nothing is locked.
 */
final class RouterState {
    /** By name, in the order they first connected. */
    final Map<String, Downstream> runners = new LinkedHashMap<>();
    /** By job, in the order they came from upstream. */
    final Map<JobUuid, HeldJob> jobs = new LinkedHashMap<>();

    final ProjectUsage usage = new ProjectUsage();
}
