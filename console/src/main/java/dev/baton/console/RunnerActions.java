package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Confirmation;
import dev.baton.console.Views.Link;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.Map;
import java.util.Optional;

/**
 * The runners page's actions, each one a /v0 call with the viewer's token: drain, archive or
 * restore (archiving after a confirmation), release from quarantine, rotate the key (after a
 * confirmation; the new key shown once).
 */
final class RunnerActions {
    private static final Link RUNNERS = new Link("/console/runners", "Back to the runners");
    private final ConsoleApi api;
    private final ConsoleScreen screen;

    RunnerActions(ConsoleApi api, ConsoleScreen screen) {
        this.api = api;
        this.screen = screen;
    }

    void drain(Context ctx, Viewer v) throws Exception {
        String state = Optional.ofNullable(ctx.formParam("state")).orElse("quiet");
        var answer = api.call(
                ctx,
                "POST",
                "/v0/runners/" + ConsoleApi.segment(ctx.pathParam("runner")) + "/drain",
                Map.of("state", state),
                v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not drained", answer.message());
            return;
        }
        ctx.redirect("/console/runners", HttpStatus.SEE_OTHER);
    }

    void archive(Context ctx, Viewer v) throws Exception {
        boolean archived = !"false".equals(ctx.formParam("archived"));
        String runner = ctx.pathParam("runner");
        if (archived
                && !screen.confirmed(
                        ctx,
                        v,
                        new Confirmation(
                                "Archive runner " + runner + "?",
                                "It can no longer connect or take jobs until it is restored; its history stays.",
                                "/console/runners/" + runner + "/archive",
                                Map.of("archived", "true"),
                                "Archive",
                                RUNNERS))) {
            return;
        }
        var answer = api.call(
                ctx,
                "PATCH",
                "/v0/runners/" + ConsoleApi.segment(ctx.pathParam("runner")),
                Map.of("archived", archived),
                v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, archived ? "Not archived" : "Not restored", answer.message());
            return;
        }
        ctx.redirect("/console/runners", HttpStatus.SEE_OTHER);
    }

    /** Lifts a quarantine through POST /v0/runners/{runner}/release (admin only, audited there). */
    void release(Context ctx, Viewer v) throws Exception {
        var answer = api.call(
                ctx,
                "POST",
                "/v0/runners/" + ConsoleApi.segment(ctx.pathParam("runner")) + "/release",
                null,
                v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not released", answer.message());
            return;
        }
        ctx.redirect("/console/runners", HttpStatus.SEE_OTHER);
    }

    /** The new key is shown on this one response and never again (only its hash is stored). */
    void rotate(Context ctx, Viewer v) throws Exception {
        String runner = ctx.pathParam("runner");
        if (!screen.confirmed(
                ctx,
                v,
                new Confirmation(
                        "Rotate the key of runner " + runner + "?",
                        "Its current key stops working at once: the runner is disconnected until it is given the new key.",
                        "/console/runners/" + runner + "/rotate",
                        Map.of(),
                        "Rotate key",
                        RUNNERS))) {
            return;
        }
        var answer = api.call(
                ctx, "POST", "/v0/runners/" + ConsoleApi.segment(ctx.pathParam("runner")) + "/token", null, v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Key not rotated", answer.message());
            return;
        }
        screen.show(
                ctx,
                200,
                "key.jte",
                "New runner key",
                "runners",
                v,
                "runner",
                answer.body().path("runner").path("slug").asText(),
                "key",
                answer.body().path("key").asText());
    }
}
