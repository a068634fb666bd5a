package dev.baton.server.store;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a router's {@code ready} adds to a claim (docs/protocol.md, "Routers"): only some of the
 * runner's specs, and an order of projects to prefer before the server's own order. Ids are the
 * store's; both parts are optional, and {@link #NONE} is a plain runner's claim.
 *
 * @param specIds the specs to claim from (a subset of the runner's), or null for all of them
 * @param preferProjects project ids, most preferred first; projects not listed come after them
 */
public record ClaimFilter(Set<Long> specIds, List<Long> preferProjects) {
    public static final ClaimFilter NONE = new ClaimFilter(null, List.of());

    public ClaimFilter {
        specIds = specIds == null ? null : Set.copyOf(specIds);
        preferProjects = preferProjects == null ? List.of() : List.copyOf(preferProjects);
    }

    /** The SQL condition on {@code j} this filter adds (ids are longs, so they are inlined safely). */
    String condition() {
        if (specIds == null) return "";
        if (specIds.isEmpty()) return " AND 1 = 0";
        return " AND j.spec_id IN (" + specIds.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")";
    }

    /** The ORDER BY leading the claim order: preferred projects by their position, then the rest. */
    String order(String claimOrder) {
        if (preferProjects.isEmpty()) return claimOrder;
        StringBuilder rank = new StringBuilder(" ORDER BY CASE j.project_id");
        for (int i = 0; i < preferProjects.size(); i++) rank.append(" WHEN ").append(preferProjects.get(i)).append(" THEN ").append(i);
        rank.append(" ELSE ").append(preferProjects.size()).append(" END, ");
        return rank + claimOrder.replaceFirst("^ ORDER BY ", "");
    }
}
