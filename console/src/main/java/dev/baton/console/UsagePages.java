package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.UsageViews.OrganizationLink;
import dev.baton.console.UsageViews.OrganizationUsage;
import dev.baton.console.UsageViews.ProjectUsage;
import dev.baton.console.Views.Link;
import io.javalin.http.Context;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The console's usage pages (issue 41): the organizations the viewer's token lists, and one
 * organization's minutes per project in a period. Both are the API's answers to the viewer's own
 * token ({@code GET /v0/organizations}, {@code GET /v0/organizations/{o}/usage}), so the role
 * table decides who sees what (usage: the organization's owners) and the API's default period
 * (the server's current month) is the page's.
 */
final class UsagePages {
    private static final Link ORGANIZATIONS = new Link("/console/organizations", "Back to the organizations");

    private final ConsoleApi api;
    private final ConsoleScreen screen;

    UsagePages(ConsoleApi api, ConsoleScreen screen) {
        this.api = api;
        this.screen = screen;
    }

    void organizations(Context ctx, Viewer v) throws Exception {
        var answer = api.call(ctx, "GET", "/v0/organizations", null, v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Refused", answer.message(), new Link(v.home(), "Back"));
            return;
        }
        List<OrganizationLink> orgs = new ArrayList<>();
        for (var o : answer.body())
            orgs.add(
                    new OrganizationLink(o.path("slug").asText(), o.path("name").asText()));
        screen.show(ctx, 200, "organizations.jte", "Organizations", "organizations", v, "organizations", orgs);
    }

    void organization(Context ctx, Viewer v) throws Exception {
        String ref = ctx.pathParam("organization");
        Map<String, String> period = new LinkedHashMap<>();
        for (String p : List.of("from", "to")) {
            String value = ctx.queryParam(p);
            if (value != null && !value.isBlank()) period.put(p, value.strip());
        }
        String query = period.isEmpty()
                ? ""
                : "?"
                        + period.entrySet().stream()
                                .map(e -> e.getKey() + "=" + ConsoleApi.segment(e.getValue()))
                                .collect(Collectors.joining("&"));
        var org = api.call(ctx, "GET", "/v0/organizations/" + ConsoleApi.segment(ref), null, v.token());
        var usage = org.ok()
                ? api.call(
                        ctx, "GET", "/v0/organizations/" + ConsoleApi.segment(ref) + "/usage" + query, null, v.token())
                : org;
        if (!usage.ok()) {
            screen.message(
                    ctx,
                    usage.status(),
                    v,
                    usage.status() == 404 ? "Not found" : "Refused",
                    usage.message(),
                    ORGANIZATIONS);
            return;
        }
        var u = usage.body();
        List<ProjectUsage> projects = new ArrayList<>();
        for (var p : u.path("projects"))
            projects.add(new ProjectUsage(
                    p.path("slug").asText(),
                    p.path("name").asText(),
                    p.path("minutes").asLong()));
        String slug = u.path("slug").asText();
        Instant from = Instant.parse(u.path("from").asText());
        Instant to = Instant.parse(u.path("to").asText());
        var view = new OrganizationUsage(
                slug,
                org.body().path("name").asText(slug),
                u.path("from").asText(),
                u.path("to").asText(),
                u.path("minutes").asLong(),
                u.path("all_time_minutes").asLong(),
                projects,
                monthLink(slug, from, -1),
                monthLink(slug, to, 0));
        screen.show(ctx, 200, "organization.jte", "Usage · " + view.name(), "organizations", v, "usage", view);
    }

    /**
     * The calendar month before {@code at} ({@code shift} -1) or starting at it (0), when {@code at}
     * is a month's first instant; null otherwise (a period of the viewer's own making).
     */
    private static String monthLink(String slug, Instant at, int shift) {
        var day = at.atZone(ZoneOffset.UTC);
        if (day.getDayOfMonth() != 1 || !day.toLocalTime().equals(LocalTime.MIDNIGHT)) return null;
        var start = day.toLocalDate().plusMonths(shift);
        return "/console/organizations/" + slug + "?from=" + start + "&to=" + start.plusMonths(1);
    }
}
