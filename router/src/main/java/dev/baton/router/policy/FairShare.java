package dev.baton.router.policy;

import dev.baton.protocol.id.ProjectUuid;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Weighted fair share of runner time across projects: the project whose runner time so far,
 * divided by its weight, is smallest goes first (ties: the larger weight). Over a batch where
 * both have work, projects with weights 1 and 3 get about a quarter and three quarters of the
 * runner time. Projects not named get {@code defaultWeight}; the router asks the server to
 * prefer the named ones in this order (others keep the server's order after them).
 */
public record FairShare(Map<ProjectUuid, Double> weights, double defaultWeight) implements SchedulingPolicy {
    public FairShare {
        weights = Map.copyOf(weights);
        for (double w : weights.values())
            if (!(w > 0)) throw new IllegalArgumentException("fair-share weights must be positive");
        if (!(defaultWeight > 0)) throw new IllegalArgumentException("the default weight must be positive");
    }

    public double weight(ProjectUuid project) {
        return weights.getOrDefault(project, defaultWeight);
    }

    @Override
    public List<ProjectUuid> preferProjects(ProjectUsage usage, Instant now) {
        List<ProjectUuid> named = new ArrayList<>(weights.keySet());
        named.sort(order(usage, now));
        return named;
    }

    @Override
    public Comparator<ProjectUuid> order(ProjectUsage usage, Instant now) {
        Comparator<ProjectUuid> byShare = Comparator.comparingDouble(p -> usage.seconds(p, now) / weight(p));
        return byShare.thenComparing(
                        Comparator.comparingDouble((ProjectUuid p) -> weight(p)).reversed())
                .thenComparing(ProjectUuid::toString);
    }

    @Override
    public int slotsPerAsk(int free) {
        return Math.min(free, 1); // re-rank after every claim: each one changes the shares
    }

    @Override
    public String describe() {
        return "fair-share " + weights;
    }
}
