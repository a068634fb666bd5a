package dev.baton.router;

import java.util.List;
import java.util.Map;

/**
 * What {@code GET /status} shows and {@code baton router status} prints: the upstream link, the
 * runners behind the router and the jobs it holds. Never a lease or a key.
 */
public record RouterStatus(boolean upstreamConnected, String upstreamRunner, List<String> upstreamSpecs, String policy,
                           List<RunnerRow> runners, List<JobRow> jobs, Map<String, Double> projectSeconds) {

    /** @param free jobs it is waiting for now (its {@code ready} slots not yet handed out) */
    public record RunnerRow(String name, List<String> specs, boolean connected, int free, int jobs) {}

    /** @param state queued (waiting for a runner), offered (preparing), running, finishing (result going upstream) */
    public record JobRow(String job, String project, String spec, String state, String runner, long heldSeconds) {}
}
