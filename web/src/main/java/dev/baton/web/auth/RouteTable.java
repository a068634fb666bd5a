package dev.baton.web.auth;

import dev.baton.store.Role;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Every {@code /v0} route with who may call it and, for actions the audit log keeps, the action's
 * name: the role table of docs/api.md as data (AccessContract checks the two are the same and
 * that every route obeys it). A route missing here is refused to everyone but the admin token.
 */
public final class RouteTable {
    /** One row: the rule, and the audit action recorded when the route succeeds (null: not audited). */
    public record Entry(AccessRule rule, String auditAction) {}

    private static final AccessRule PUBLIC = new AccessRule.Public();
    private static final AccessRule ADMIN = new AccessRule.AdminOnly();
    private static final AccessRule ANY = new AccessRule.Authenticated();

    private static final Map<String, Entry> ROUTES = new LinkedHashMap<>();

    static {
        add("GET /v0/openapi.json", PUBLIC, null);
        add("GET /v0/whoami", ANY, null);
        // Server-wide resources: runners and specs are read by every role (where jobs run), changed by the admin.
        add("POST /v0/runners", ADMIN, "runner.created");
        add("GET /v0/runners", ANY, null);
        add("GET /v0/runners/{runner}", ANY, null);
        add("PATCH /v0/runners/{runner}", ADMIN, "runner.updated");
        add("POST /v0/runners/{runner}/token", ADMIN, "runner.key_rotated");
        add("POST /v0/runners/{runner}/release", ADMIN, "runner.released");
        add("POST /v0/runners/{runner}/canary", ADMIN, "runner.canary_submitted");
        add("GET /v0/runners/{runner}/specs", ANY, null);
        add("POST /v0/runners/{runner}/specs", ADMIN, "runner.spec_added");
        add("DELETE /v0/runners/{runner}/specs/{spec}", ADMIN, "runner.spec_removed");
        add("POST /v0/runners/{runner}/drain", ADMIN, "runner.drained");
        add("POST /v0/runners/{runner}/update", ADMIN, "runner.update_sent");
        add("GET /v0/runners/{runner}/capabilities", ADMIN, null);
        // Fleet upgrades (issue 41): started by the admin; the driver audits how each roll ended.
        add("POST /v0/rolls", ADMIN, "runner_roll.started");
        add("GET /v0/rolls", ADMIN, null);
        add("GET /v0/rolls/{roll}", ADMIN, null);
        // OJS workers seen from Baton's own API (issue 47); steering them is /ojs/v1's, with the admin token.
        add("GET /v0/ojs/workers", ADMIN, null);
        // Transport A's runner messages: the runner key is checked in the handler, as on the channel.
        add("GET /v0/runners/{runner}/leases/subjects", PUBLIC, null);
        add("POST /v0/runners/{runner}/leases/ack", PUBLIC, null);
        add("POST /v0/runners/{runner}/leases/heartbeat", PUBLIC, null);
        add("POST /v0/runners/{runner}/leases/complete", PUBLIC, null);
        add("POST /v0/runners/{runner}/leases/cancel-ack", PUBLIC, null);
        add("POST /v0/runners/{runner}/leases/log", PUBLIC, null);
        add("GET /v0/nodes", ADMIN, null);
        add("POST /v0/schedules", ADMIN, "schedule.created");
        add("GET /v0/schedules", ADMIN, null);
        add("GET /v0/schedules/{schedule}", ADMIN, null);
        add("DELETE /v0/schedules/{schedule}", ADMIN, "schedule.deleted");
        add("POST /v0/schedules/{schedule}/pause", ADMIN, "schedule.paused");
        add("POST /v0/schedules/{schedule}/resume", ADMIN, "schedule.resumed");
        add("POST /v0/specs", ADMIN, "spec.created");
        add("GET /v0/specs", ANY, null);
        add("GET /v0/specs/{spec}", ANY, null);
        add("PATCH /v0/specs/{spec}", ADMIN, "spec.updated");
        add("DELETE /v0/specs/{spec}", ADMIN, "spec.deleted");
        // Organizations and projects.
        add("POST /v0/organizations", ADMIN, "organization.created");
        add("GET /v0/organizations", ANY, null);
        add("GET /v0/organizations/{organization}", new AccessRule.OnOrganization(Role.VIEWER), null);
        add("PATCH /v0/organizations/{organization}", ADMIN, "organization.plan_changed");
        add("GET /v0/organizations/{organization}/usage", new AccessRule.OnOrganization(Role.OWNER), null);
        add("GET /v0/organizations/{organization}/members", new AccessRule.OnOrganization(Role.OWNER), null);
        add(
                "PUT /v0/organizations/{organization}/members/{user}",
                new AccessRule.OnOrganization(Role.OWNER),
                "member.set");
        add(
                "DELETE /v0/organizations/{organization}/members/{user}",
                new AccessRule.OnOrganization(Role.OWNER),
                "member.removed");
        add("POST /v0/projects", ADMIN, "project.created");
        add("GET /v0/projects", ANY, null);
        add("GET /v0/projects/{project}", new AccessRule.OnProject(Role.VIEWER), null);
        add("GET /v0/projects/{project}/members", new AccessRule.OnProject(Role.OWNER), null);
        add("PUT /v0/projects/{project}/members/{user}", new AccessRule.OnProject(Role.OWNER), "member.set");
        add("DELETE /v0/projects/{project}/members/{user}", new AccessRule.OnProject(Role.OWNER), "member.removed");
        // Runs, jobs, reports, logs.
        add("POST /v0/run", new AccessRule.InHandler(Role.SUBMITTER), null);
        add("GET /v0/projects/{project}/jobs", new AccessRule.OnProject(Role.VIEWER), null);
        add("GET /v0/projects/{project}/jobs/{job}", new AccessRule.OnProject(Role.VIEWER), null);
        add("POST /v0/projects/{project}/jobs/{job}/cancel", new AccessRule.OnProject(Role.SUBMITTER), "job.canceled");
        add("POST /v0/projects/{project}/jobs/{job}/rerun", new AccessRule.OnProject(Role.SUBMITTER), "job.rerun");
        add("GET /v0/projects/{project}/jobs/{job}/logs", new AccessRule.OnProject(Role.VIEWER), null);
        add("GET /v0/projects/{project}/reports/{report}", new AccessRule.OnProject(Role.VIEWER), null);
        // Alerts (docs/alerts.md): thresholds are the maintainers'; alerts are triaged by whoever runs benchmarks.
        add("POST /v0/projects/{project}/thresholds", new AccessRule.OnProject(Role.MAINTAINER), "threshold.created");
        add("GET /v0/projects/{project}/thresholds", new AccessRule.OnProject(Role.VIEWER), null);
        add("GET /v0/projects/{project}/thresholds/{threshold}", new AccessRule.OnProject(Role.VIEWER), null);
        add(
                "PUT /v0/projects/{project}/thresholds/{threshold}",
                new AccessRule.OnProject(Role.MAINTAINER),
                "threshold.updated");
        add(
                "DELETE /v0/projects/{project}/thresholds/{threshold}",
                new AccessRule.OnProject(Role.MAINTAINER),
                "threshold.deleted");
        add("GET /v0/projects/{project}/alerts", new AccessRule.OnProject(Role.VIEWER), null);
        add("GET /v0/projects/{project}/alerts/{alert}", new AccessRule.OnProject(Role.VIEWER), null);
        add(
                "POST /v0/projects/{project}/alerts/{alert}/dismiss",
                new AccessRule.OnProject(Role.SUBMITTER),
                "alert.dismissed");
        add(
                "POST /v0/projects/{project}/alerts/{alert}/reopen",
                new AccessRule.OnProject(Role.SUBMITTER),
                "alert.reopened");
        add(
                "POST /v0/projects/{project}/alerts/{alert}/triage",
                new AccessRule.OnProject(Role.SUBMITTER),
                "alert.triaged");
        add("GET /v0/projects/{project}/alert-groups", new AccessRule.OnProject(Role.VIEWER), null);
        add("GET /v0/projects/{project}/alert-groups/{group}", new AccessRule.OnProject(Role.VIEWER), null);
        add(
                "POST /v0/projects/{project}/alert-groups/{group}/triage",
                new AccessRule.OnProject(Role.SUBMITTER),
                "alert_group.triaged");
        add("GET /v0/projects/{project}/metrics", new AccessRule.OnProject(Role.VIEWER), null);
        add("POST /v0/projects/{project}/webhooks", new AccessRule.OnProject(Role.MAINTAINER), "webhook.created");
        add("GET /v0/projects/{project}/webhooks", new AccessRule.OnProject(Role.MAINTAINER), null);
        add(
                "DELETE /v0/projects/{project}/webhooks/{webhook}",
                new AccessRule.OnProject(Role.MAINTAINER),
                "webhook.deleted");
        add(
                "GET /v0/projects/{project}/webhooks/{webhook}/deliveries",
                new AccessRule.OnProject(Role.MAINTAINER),
                null);
        // People and tokens.
        add("POST /v0/users", ADMIN, "user.created");
        add("GET /v0/users", ADMIN, null);
        add("GET /v0/users/{user}", ADMIN, null);
        add("POST /v0/tokens", new AccessRule.InHandler(Role.OWNER), "token.created");
        add("GET /v0/tokens", ANY, null);
        add("DELETE /v0/tokens/{token}", new AccessRule.InHandler(Role.OWNER), "token.revoked");
        add("GET /v0/audit", ADMIN, null);
    }

    private RouteTable() {}

    private static void add(String route, AccessRule rule, String auditAction) {
        if (ROUTES.put(route, new Entry(rule, auditAction)) != null)
            throw new IllegalStateException("route listed twice: " + route);
    }

    /** The entry of {@code METHOD /path/{param}}, as Javalin names the matched route. */
    public static Optional<Entry> of(String method, String path) {
        return Optional.ofNullable(ROUTES.get(method + " " + path));
    }

    /** Every row, in the order of docs/api.md. */
    public static Map<String, Entry> all() {
        return java.util.Collections.unmodifiableMap(ROUTES);
    }
}
