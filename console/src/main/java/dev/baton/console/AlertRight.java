package dev.baton.console;

import dev.baton.api.AlertRoutes;
import dev.baton.store.Project;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.AccessRule;
import dev.baton.web.auth.Principal;

/**
 * Who may dismiss, reopen and triage a project's alerts: the API's own rule ({@link AlertRoutes#TRIAGE},
 * which those routes are registered with), so the console's buttons show exactly when the API would
 * accept the call.
 */
final class AlertRight {
    private AlertRight() {}

    static boolean mayTriage(Principal viewer, Project project) {
        AccessRule rule = AlertRoutes.TRIAGE.rule();
        if (!(rule instanceof AccessRule.OnProject(var role)))
            throw new IllegalStateException("alerts are triaged per project, not " + rule);
        return AccessControl.roleOn(viewer, project).map(r -> r.includes(role)).orElse(false);
    }
}
