package dev.baton.store.token;

import java.time.Instant;
import java.util.List;

/**
 * What an authenticated registry caller may do: the verified content of a token, or everything
 * for the admin token presented directly.
 *
 * @param subject  who the token was issued to ({@code admin}, or a runner UUID for pull tokens)
 * @param access   the resources and actions allowed
 * @param admin    true only for the admin token itself, which may do anything
 * @param expires  when the grant ends (null for the admin token)
 * @param pull     for a job's pull token: the job, attempt and image it is limited to (issue 41); else null
 */
public record Grant(String subject, List<Access> access, boolean admin, Instant expires, PullScope pull) {
    public Grant {
        access = List.copyOf(access);
    }

    /** A grant not limited to one job's pull. */
    public Grant(String subject, List<Access> access, boolean admin, Instant expires) {
        this(subject, access, admin, expires, null);
    }

    public static Grant adminToken() {
        return new Grant("admin", List.of(), true, null);
    }

    /**
     * True when this grant allows {@code action} on the repository {@code path} of {@code project}
     * ({@code path} empty for the project's root repository). {@code requestedName} is the name
     * as the client wrote it, which matters only for tokens issued before the project existed.
     */
    public boolean allows(String project, String path, String requestedName, String action) {
        if (admin) return true;
        String canonical = path.isEmpty() ? project : project + "/" + path;
        for (Access a : access) {
            if (!a.allows(action)) continue;
            if (a.type().equals(Access.PROJECT) && a.name().equals(project)) return true;
            if (a.type().equals(Access.REPOSITORY)
                    && (a.name().equals(canonical) || a.name().equals(requestedName))) return true;
        }
        return false;
    }
}
