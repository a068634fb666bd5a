package dev.baton.api;

import dev.baton.protocol.id.ResourceId;
import dev.baton.store.Project;
import dev.baton.store.Store;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Projects by the reference a run names (UUID or slug), read once per node and then served from
 * memory (issue 13: a submission read its project every time, twice for a token holder). Safe
 * without any invalidation because a project row never changes and is never deleted: the store
 * has no statement that updates or deletes one (as {@code Store.projectUuid} relies on, ADR
 * 0018). A UUID always names the project with that uuid and a slug the one with that slug, so
 * a reference that found a project finds the same one forever. Only found projects are kept: a
 * project created on any node is found at its first use. Access is still decided per request on
 * the caller's memberships, read at that request; the project contributes only its id and
 * organization, which never change. See docs/decisions/0019-submission-reads.md.
 */
final class KnownProjects {
    private final Store store;
    /** Keyed by the parsed UUID or the slug text, so the keys are bounded by twice the projects. */
    private final Map<Object, Project> byReference = new ConcurrentHashMap<>();

    KnownProjects(Store store) {
        this.store = store;
    }

    Optional<Project> find(ResourceId ref) {
        Object key = ref.uuid().<Object>map(u -> u).orElse(ref.text());
        Project known = byReference.get(key);
        if (known != null) return Optional.of(known);
        Optional<Project> read = store.organizations().findProject(ref);
        read.ifPresent(p -> byReference.put(key, p));
        return read;
    }
}
