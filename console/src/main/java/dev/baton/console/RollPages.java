package dev.baton.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.RollViews.RollForm;
import dev.baton.console.RollViews.RollPage;
import dev.baton.console.RollViews.RollRow;
import dev.baton.console.RollViews.StepRow;
import dev.baton.console.RollViews.Target;
import dev.baton.console.Views.Link;
import dev.baton.dispatch.channel.RollRoutes;
import dev.baton.store.Runner;
import dev.baton.store.RunnerFilter;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Fleet upgrades on the console (issue 41): the "roll an update" form on the runners page, the
 * rolls page and one roll's progress. Like {@link FleetForms}, the form is shown and its post
 * accepted only for a viewer the role table lets call {@code POST /v0/rolls}, and the roll is
 * started by that call with the viewer's token, so the API validates and audits it as for
 * {@code baton runners update}; the pages show the API's answers to the same token.
 */
final class RollPages {
    private static final Link ROLLS = new Link("/console/rolls", "Back to the rolls");

    private final Store store;
    private final ConsoleApi api;
    private final ConsoleScreen screen;

    RollPages(Store store, ConsoleApi api, ConsoleScreen screen) {
        this.store = store;
        this.api = api;
        this.screen = screen;
    }

    /** The empty form for the runners page: every runner, one at a time, within the API's default timeout. */
    RollForm blankForm() {
        return form("all", "", "", "", "1", "600", null);
    }

    void newRoll(Context ctx, Viewer v) {
        FleetForms.permit(v, RollRoutes.START);
        showForm(ctx, 200, v, blankForm());
    }

    void start(Context ctx, Viewer v) throws Exception {
        FleetForms.permit(v, RollRoutes.START);
        String target = text(ctx.formParam("target"));
        String url = text(ctx.formParam("url"));
        String checksum = text(ctx.formParam("checksum")).toLowerCase(Locale.ROOT);
        String version = text(ctx.formParam("version"));
        String maxUnavailable = text(ctx.formParam("max_unavailable"));
        String timeout = text(ctx.formParam("timeout"));
        Map<String, Object> body = new LinkedHashMap<>();
        if (target.startsWith("spec:")) body.put("spec", target.substring(5));
        else if (target.startsWith("runner:")) body.put("runner", target.substring(7));
        else body.put("all", true);
        body.put("url", url);
        body.put("checksum", checksum);
        if (!version.isEmpty()) body.put("version", version);
        try {
            if (!maxUnavailable.isEmpty()) body.put("max_unavailable", whole("max unavailable", maxUnavailable));
            if (!timeout.isEmpty()) body.put("rejoin_timeout_seconds", whole("timeout", timeout));
        } catch (IllegalArgumentException e) {
            showForm(ctx, 400, v, form(target, url, checksum, version, maxUnavailable, timeout, e.getMessage()));
            return;
        }
        var started = api.call(ctx, "POST", "/v0/rolls", body, v.token());
        if (started.ok()) {
            ctx.redirect("/console/rolls/" + started.body().path("uuid").asText(), HttpStatus.SEE_OTHER);
        } else if (started.status() == 403) {
            screen.message(ctx, 403, v, "Refused", started.message(), ROLLS);
        } else {
            showForm(
                    ctx,
                    started.status(),
                    v,
                    form(target, url, checksum, version, maxUnavailable, timeout, started.message()));
        }
    }

    void rolls(Context ctx, Viewer v) throws Exception {
        var answer = api.call(ctx, "GET", "/v0/rolls", null, v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Refused", answer.message(), new Link(v.home(), "Back"));
            return;
        }
        List<RollRow> rows = new ArrayList<>();
        for (JsonNode r : answer.body()) rows.add(row(r));
        screen.show(ctx, 200, "rolls.jte", "Fleet rolls", "runners", v, "rolls", rows);
    }

    void roll(Context ctx, Viewer v) throws Exception {
        String ref = ctx.pathParam("roll");
        var answer = api.call(ctx, "GET", "/v0/rolls/" + ConsoleApi.segment(ref), null, v.token());
        if (!answer.ok()) {
            screen.message(
                    ctx, answer.status(), v, answer.status() == 404 ? "Not found" : "Refused", answer.message(), ROLLS);
            return;
        }
        JsonNode r = answer.body();
        List<StepRow> steps = new ArrayList<>();
        for (JsonNode s : r.path("runners"))
            steps.add(new StepRow(
                    s.path("runner").asText(),
                    s.path("state").asText(),
                    textOrNull(s, "from_version"),
                    instant(s, "started"),
                    instant(s, "ended"),
                    textOrNull(s, "message")));
        RollRow row = row(r);
        screen.show(
                ctx,
                200,
                "roll.jte",
                "Roll " + row.shortId(),
                "runners",
                v,
                "page",
                new RollPage(
                        row,
                        r.path("url").asText(),
                        r.path("checksum").asText(),
                        r.path("max_unavailable").asInt(),
                        r.path("rejoin_timeout_seconds").asLong(),
                        steps));
    }

    private void showForm(Context ctx, int status, Viewer v, RollForm form) {
        screen.show(ctx, status, "roll-new.jte", "Roll an update", "runners", v, "form", form);
    }

    private RollForm form(
            String target,
            String url,
            String checksum,
            String version,
            String maxUnavailable,
            String timeout,
            String error) {
        List<Target> specs = new ArrayList<>();
        for (Spec s : store.specs().listSpecs(false)) {
            String value = "spec:" + s.slug().value();
            specs.add(new Target(value, s.name() + " (" + s.slug().value() + ")", value.equals(target)));
        }
        List<Target> runners = new ArrayList<>();
        for (Runner r : store.runners().listRunners(new RunnerFilter(null, null, false))) {
            String value = "runner:" + r.slug().value();
            runners.add(new Target(value, r.name() + " (" + r.slug().value() + ")", value.equals(target)));
        }
        boolean all =
                specs.stream().noneMatch(Target::chosen) && runners.stream().noneMatch(Target::chosen);
        return new RollForm(specs, runners, all, url, checksum, version, maxUnavailable, timeout, error);
    }

    private static RollRow row(JsonNode r) {
        int finished = 0;
        int total = 0;
        for (JsonNode s : r.path("runners")) {
            total++;
            String state = s.path("state").asText();
            if (state.equals("done") || state.equals("skipped") || state.equals("failed")) finished++;
        }
        return new RollRow(
                r.path("uuid").asText(),
                r.path("state").asText(),
                r.path("target").asText(),
                r.path("version").asText(),
                textOrNull(r, "created_by"),
                instant(r, "created"),
                instant(r, "ended"),
                textOrNull(r, "reason"),
                finished,
                total);
    }

    private static String textOrNull(JsonNode n, String field) {
        JsonNode v = n.path(field);
        return v.isMissingNode() || v.isNull() ? null : v.asText();
    }

    private static Instant instant(JsonNode n, String field) {
        String t = textOrNull(n, field);
        return t == null ? null : Instant.parse(t);
    }

    private static String text(String s) {
        return s == null ? "" : s.strip();
    }

    private static int whole(String field, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " must be a whole number, not '" + text + "'");
        }
    }
}
