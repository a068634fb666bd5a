package dev.baton.server.console;

import dev.baton.server.auth.AccessControl;
import dev.baton.server.auth.AccessRule;
import dev.baton.server.auth.Principal;
import dev.baton.server.auth.RouteTable;
import dev.baton.server.store.Project;

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
