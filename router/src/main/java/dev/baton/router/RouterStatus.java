package dev.baton.router;

import dev.baton.router.policy.ProjectUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * What {@code GET /status} shows and {@code baton router status} prints: the upstream link, the
 * runners behind the router and the jobs it holds. Never a lease or a key.
 */
public record RouterStatus(
        boolean upstreamConnected,
        String upstreamRunner,
        List<String> upstreamSpecs,
        String policy,
        List<RunnerRow> runners,
        List<JobRow> jobs,
        Map<String, Double> projectSeconds) {

    /** @param free jobs it is waiting for now (its {@code ready} slots not yet handed out) */
    public record RunnerRow(String name, List<String> specs, boolean connected, int free, int jobs) {}

    /** @param state queued (waiting for a runner), offered (preparing), running, finishing (result going upstream) */
    public record JobRow(String job, String project, String spec, String state, String runner, long heldSeconds) {}

    /** The router's state as the status shows it (read on the event loop). */
    static RouterStatus of(
            Collection<Downstream> runners,
            Collection<HeldJob> jobs,
            ProjectUsage usage,
            Instant now,
            boolean upstreamOpen,
            String upstreamName,
            List<String> upstreamSpecs,
            String policy) {
        List<RunnerRow> rs = new ArrayList<>();
        for (Downstream r : runners) {
            int held = (int) jobs.stream()
                    .filter(h -> r.name.equals(h.owner) && h.state != HeldJob.State.FINISHING)
                    .count();
            rs.add(new RunnerRow(
                    r.name, List.copyOf(new TreeSet<>(r.specs)), r.link != null, r.waiting ? r.free : 0, held));
        }
        List<JobRow> js = new ArrayList<>();
        for (HeldJob h : jobs) {
            js.add(new JobRow(
                    h.id.toString(),
                    h.project() == null ? null : h.project().toString(),
                    h.spec(),
                    h.state.name().toLowerCase(Locale.ROOT),
                    h.owner,
                    Duration.between(h.received, now).toSeconds()));
        }
        Map<String, Double> shares = new LinkedHashMap<>();
        usage.snapshot(now).forEach((p, share) -> shares.put(p.toString(), share));
        return new RouterStatus(upstreamOpen, upstreamName, upstreamSpecs, policy, rs, js, shares);
    }
}
