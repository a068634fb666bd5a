package dev.baton.dispatch;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ResourceId;
import dev.baton.store.ClaimFilter;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a {@code ready} asks the {@link Dispatcher} for: the specs its runner waits on, and the
 * claim filter of a router's ready (docs/protocol.md, "Routers"): the specs it narrows to and the
 * projects it prefers, named by slug and uuid on the wire and by id in the claim. Resolved before
 * the dispatcher takes its lock, since either may read the store.
 */
final class ReadyScopes {
    /** The specs one wait serves and the filter of its claims ({@link ClaimFilter#NONE} for a runner). */
    record Scope(Set<Long> specIds, ClaimFilter filter) {}

    private final Store store;
    /** The specs each runner serves, read on a ready only when not cached (issue 13). */
    private final RunnerSpecSets specSets;
    /**
     * Project ids by uuid, for a router's preferred projects. A project's uuid and id never change
     * and no project is ever deleted, so an entry never goes stale, on any node; unknown uuids are
     * not kept (they are read again).
     */
    private final Map<ProjectUuid, Long> projectIds = new ConcurrentHashMap<>();

    ReadyScopes(Store store, RunnerSpecSets specSets) {
        this.store = store;
        this.specSets = specSets;
    }

    /** The scope of a ready from {@code runnerId}: {@code specSlugs} null for all its specs, {@code preferProjects} null or empty for none. */
    Scope of(long runnerId, List<String> specSlugs, List<ProjectUuid> preferProjects) {
        Set<Long> specIds;
        if (specSlugs == null) {
            specIds = specSets.activeIds(runnerId);
        } else {
            specIds = new HashSet<>();
            for (Spec spec : specSets.of(runnerId)) {
                if (spec.archived() == null && specSlugs.contains(spec.slug().value())) specIds.add(spec.id());
            }
        }
        List<Long> prefer = new ArrayList<>();
        for (ProjectUuid project : preferProjects == null ? List.<ProjectUuid>of() : preferProjects) {
            Long id = projectIds.get(project);
            if (id == null) {
                id = store.organizations()
                        .findProject(ResourceId.of(project.toString()))
                        .map(p -> p.id())
                        .orElse(null);
                if (id != null) projectIds.put(project, id);
            }
            if (id != null) prefer.add(id);
        }
        return new Scope(
                specIds,
                specSlugs == null && prefer.isEmpty()
                        ? ClaimFilter.NONE
                        : new ClaimFilter(specSlugs == null ? null : specIds, prefer));
    }
}
