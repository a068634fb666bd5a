package dev.baton.web.auth;

import dev.baton.store.Project;
import dev.baton.store.Role;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Who may cancel a job (docs/api.md, "Access"): the admin and a maintainer (or owner) of its project
 * any job; a submitter only the jobs its own user submitted; a viewer none. One rule for the API,
 * which enforces it, and the console, which shows a Cancel button only to whom it holds.
 */
public final class CancelRight {
    private CancelRight() {}

    /**
     * @param submitter the user id that submitted the job (empty for the admin's or an unknown
     *     submitter), asked only when the answer depends on it
     */
    public static boolean mayCancel(Principal who, Project project, Supplier<Optional<Long>> submitter) {
        return switch (who) {
            case Principal.Admin a -> true;
            case Principal.TokenHolder holder -> {
                Optional<Role> role = holder.roleOn(project);
                if (role.isEmpty() || !role.get().includes(Role.SUBMITTER)) yield false;
                if (role.get().includes(Role.MAINTAINER)) yield true;
                yield submitter.get().map(user -> user == holder.user().id()).orElse(false);
            }
        };
    }
}
