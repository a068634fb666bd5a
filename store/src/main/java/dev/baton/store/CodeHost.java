package dev.baton.store;

import java.time.Instant;

/**
 * Where a project's results go beside its pull requests (docs/pull-requests.md): a GitHub
 * repository or a GitLab project, reached at {@code apiUrl} with {@code token}, which is never
 * shown after it was given.
 */
public record CodeHost(
        long id,
        String uuid,
        long projectId,
        String kind,
        String apiUrl,
        String repository,
        String token,
        Instant created) {
    public static final String GITHUB = "github";
    public static final String GITLAB = "gitlab";
}
