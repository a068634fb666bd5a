package dev.baton.store;

import dev.baton.protocol.value.ImageDigest;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a router's {@code ready} adds to a claim (docs/protocol.md, "Routers"): only some of the
 * runner's specs, and an order of projects to prefer before the server's own order. Ids are the
 * store's; both parts are optional, and {@link #NONE} is a plain runner's claim.
 *
 * <p>{@code heldImages} changes neither which job is claimed nor in which order: it is what the
 * runner reported holding (image affinity, docs/scheduling.md), recorded on the attempt as
 * {@code warm}. The preference itself is the dispatcher's ({@code ImageAffinity}).
 *
 * @param specIds the specs to claim from (a subset of the runner's), or null for all of them
 * @param preferProjects project ids, most preferred first; projects not listed come after them
 * @param heldImages the image digests the claiming runner holds, or null when it reports none
 */
public record ClaimFilter(Set<Long> specIds, List<Long> preferProjects, Set<ImageDigest> heldImages) {
    public static final ClaimFilter NONE = new ClaimFilter(null, List.of());

    public ClaimFilter {
        specIds = specIds == null ? null : Set.copyOf(specIds);
        preferProjects = preferProjects == null ? List.of() : List.copyOf(preferProjects);
        heldImages = heldImages == null ? null : Set.copyOf(heldImages);
    }

    public ClaimFilter(Set<Long> specIds, List<Long> preferProjects) {
        this(specIds, preferProjects, null);
    }

    /** This filter for a runner that holds {@code images} (null: it reports none). */
    public ClaimFilter holding(Collection<ImageDigest> images) {
        return new ClaimFilter(specIds, preferProjects, images == null ? null : Set.copyOf(images));
    }

    /** Whether a job of {@code image} is a warm claim for this runner; null when unknown (no report, or a job without an image). */
    Boolean warm(ImageDigest image) {
        return heldImages == null || image == null ? null : heldImages.contains(image);
    }

    /** Whether this filter adds nothing to a claim's SQL text (held images do not change it): the text is then constant. */
    boolean addsNoSql() {
        return specIds == null && preferProjects.isEmpty();
    }

    /** Whether this filter puts some projects first, which changes the order within a spec. */
    boolean prefersProjects() {
        return !preferProjects.isEmpty();
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
        for (int i = 0; i < preferProjects.size(); i++)
            rank.append(" WHEN ").append(preferProjects.get(i)).append(" THEN ").append(i);
        rank.append(" ELSE ").append(preferProjects.size()).append(" END, ");
        return rank + claimOrder.replaceFirst("^ ORDER BY ", "");
    }
}
