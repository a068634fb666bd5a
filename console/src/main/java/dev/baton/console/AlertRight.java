package dev.baton.console;

import dev.baton.store.Project;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.AccessRule;
import dev.baton.web.auth.Principal;
import dev.baton.web.auth.RouteTable;

/**
 * Who may dismiss and reopen a project's alerts: the API's own rule, read from {@link RouteTable}
 * (the route {@code POST /v0/projects/{project}/alerts/{alert}/dismiss}), so the console's buttons
 * show exactly when the API would accept the call.
 */
final class AlertRight {
    private AlertRight() {}

    static boolean mayTriage(Principal viewer, Project project) {
        AccessRule rule = RouteTable.of("POST", "/v0/projects/{project}/alerts/{alert}/dismiss")
                .map(RouteTable.Entry::rule)
                .orElseThrow(() -> new IllegalStateException("the alert routes are missing from the route table"));
        if (!(rule instanceof AccessRule.OnProject(var role)))
            throw new IllegalStateException("alerts are triaged per project, not " + rule);
        return AccessControl.roleOn(viewer, project).map(r -> r.includes(role)).orElse(false);
    }
}
