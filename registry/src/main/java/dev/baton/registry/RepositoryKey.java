package dev.baton.registry;

import dev.baton.protocol.id.ProjectUuid;

/** A repository with its project resolved to a UUID: what storage and tokens are keyed by. */
public record RepositoryKey(ProjectUuid project, String path) {
    /** {@code <project uuid>[/<path>]}, the canonical name used in token scopes. */
    public String canonical() {
        return path.isEmpty() ? project.toString() : project + "/" + path;
    }
}
