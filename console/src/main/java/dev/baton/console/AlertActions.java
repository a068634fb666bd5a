package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Confirmation;
import dev.baton.console.Views.Link;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.Map;

/** The alerts page's actions, each one a /v0 call with the viewer's token: dismiss, reopen, triage a group. */
final class AlertActions {
    private final ConsoleApi api;
    private final ConsoleScreen screen;

    AlertActions(ConsoleApi api, ConsoleScreen screen) {
        this.api = api;
        this.screen = screen;
    }

    /** Dismisses (after a confirmation) or reopens an alert through the API, as the viewer. */
    void triage(Context ctx, Viewer v, String verb) throws Exception {
        String alert = ctx.pathParam("alert");
        String path = "/console/projects/" + ctx.pathParam("project") + "/alerts";
        Link back = new Link(path, "Back to the alerts");
        if ("dismiss".equals(verb)
                && !screen.confirmed(
                        ctx,
                        v,
                        new Confirmation(
                                "Dismiss alert " + ConsoleModule.shortId(alert) + "?",
                                "It moves to the dismissed alerts and stops counting as active; Reopen brings it back.",
                                path + "/" + alert + "/dismiss",
                                Map.of(),
                                "Dismiss alert",
                                back))) {
            return;
        }
        var answer = api.call(
                ctx,
                "POST",
                "/v0/projects/" + ConsoleApi.segment(ctx.pathParam("project")) + "/alerts/" + ConsoleApi.segment(alert)
                        + "/" + verb,
                null,
                v.token());
        if (!answer.ok()) {
            screen.message(
                    ctx,
                    answer.status(),
                    v,
                    "dismiss".equals(verb) ? "Not dismissed" : "Not reopened",
                    answer.message(),
                    back);
            return;
        }
        ctx.redirect(path, HttpStatus.SEE_OTHER);
    }

    /** Triages a group as a whole through the API, as the viewer: the state, and the commit and note when given. */
    void triageGroup(Context ctx, Viewer v) throws Exception {
        String path = "/console/projects/" + ctx.pathParam("project") + "/alerts";
        Map<String, Object> body = new java.util.LinkedHashMap<>();
        body.put("state", ctx.formParam("state"));
        String commit = ctx.formParam("commit");
        if (commit != null && !commit.isBlank()) body.put("commit", commit.strip());
        String note = ctx.formParam("note");
        if (note != null && !note.isBlank()) body.put("note", note);
        var answer = api.call(
                ctx,
                "POST",
                "/v0/projects/" + ConsoleApi.segment(ctx.pathParam("project")) + "/alert-groups/"
                        + ConsoleApi.segment(ctx.pathParam("group")) + "/triage",
                body,
                v.token());
        if (!answer.ok()) {
            screen.message(
                    ctx, answer.status(), v, "Not triaged", answer.message(), new Link(path, "Back to the alerts"));
            return;
        }
        ctx.redirect(path, HttpStatus.SEE_OTHER);
    }
}
