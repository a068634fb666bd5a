package dev.baton.console;

import dev.baton.api.RunnerRoutes;
import dev.baton.api.SpecRoutes;
import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.FleetFormViews.CreatedRunner;
import dev.baton.console.FleetFormViews.RunnerForm;
import dev.baton.console.FleetFormViews.RunnerSpecs;
import dev.baton.console.FleetFormViews.SpecChoice;
import dev.baton.console.FleetFormViews.SpecForm;
import dev.baton.console.Views.Link;
import dev.baton.protocol.value.Architecture;
import dev.baton.store.Runner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.auth.AccessRule;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Lookups;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The console's fleet forms (issue 41): create a runner (its key shown once), create and edit a
 * spec, choose the specs a runner serves. Each page is shown only to a viewer the role table lets
 * make the change behind it, and each post is checked against the same table before anything is
 * called; the change itself is a call to the /v0 API with the viewer's token ({@link ConsoleApi}),
 * so the API checks, validates and audits it exactly as for the CLI.
 */
final class FleetForms {
    private static final BigDecimal GIB = BigDecimal.valueOf(1L << 30);
    private static final Link RUNNERS = new Link("/console/runners", "Back to the runners");
    private static final Link SPECS = new Link("/console/specs", "Back to the specs");

    private final Store store;
    private final ConsoleApi api;
    private final ConsoleScreen screen;
    private final Lookups find;

    FleetForms(Store store, ConsoleApi api, ConsoleScreen screen) {
        this.store = store;
        this.api = api;
        this.screen = screen;
        this.find = new Lookups(store);
    }

    /**
     * Refuses (403, nothing called) a viewer whom {@code access} (what the API route behind the form is
     * registered with) does not let call it: the page of a form it may not use is not shown, and a
     * post it forged changes nothing.
     */
    static void permit(Viewer viewer, RouteAccess access) {
        if (access.rule() instanceof AccessRule.AdminOnly && !viewer.admin()) {
            throw new ApiException(403, "forbidden", "this is a server-wide action: it needs the admin token");
        }
    }

    // ---- create a runner -------------------------------------------------------------------------

    void newRunner(Context ctx, Viewer v) {
        permit(v, RunnerRoutes.MANAGE);
        showRunnerForm(ctx, 200, v, new RunnerForm("", "", choices(Set.of()), null));
    }

    void createRunner(Context ctx, Viewer v) throws Exception {
        permit(v, RunnerRoutes.MANAGE);
        String name = text(ctx.formParam("name"));
        String slug = text(ctx.formParam("slug"));
        Set<String> specs = new LinkedHashSet<>(ctx.formParams("spec"));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        if (!slug.isEmpty()) body.put("slug", slug);
        var created = api.call(ctx, "POST", "/v0/runners", body, v.token());
        if (!created.ok()) {
            if (created.status() == 403) {
                screen.message(ctx, 403, v, "Refused", created.message(), RUNNERS);
                return;
            }
            showRunnerForm(ctx, created.status(), v, new RunnerForm(name, slug, choices(specs), created.message()));
            return;
        }
        String uuid = created.body().at("/runner/uuid").asText();
        String runnerSlug = created.body().at("/runner/slug").asText();
        List<String> served = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (String spec : specs) {
            var added = api.call(
                    ctx, "POST", "/v0/runners/" + ConsoleApi.segment(uuid) + "/specs", Map.of("spec", spec), v.token());
            if (!added.ok()) {
                failed.add(spec + " (" + added.message() + ")");
                continue;
            }
            // The answer is every spec the runner now serves.
            served.clear();
            for (var s : added.body()) served.add(s.path("slug").asText());
        }
        // The key is shown even when a spec could not be added: it exists only in this response.
        String warning = failed.isEmpty()
                ? null
                : "Not added: " + String.join(", ", failed) + ". Choose its specs again from the runners page.";
        screen.show(
                ctx,
                201,
                "runner-created.jte",
                "Runner created",
                "runners",
                v,
                "created",
                new CreatedRunner(
                        runnerSlug,
                        created.body().at("/runner/name").asText(),
                        created.body().path("key").asText(),
                        served,
                        warning));
    }

    private void showRunnerForm(Context ctx, int status, Viewer v, RunnerForm form) {
        screen.show(ctx, status, "runner-new.jte", "New runner", "runners", v, "form", form);
    }

    // ---- the specs a runner serves ---------------------------------------------------------------

    void runnerSpecs(Context ctx, Viewer v) {
        permit(v, RunnerRoutes.MANAGE);
        Runner runner = find.runner(ctx.pathParam("runner"));
        Set<String> served = new LinkedHashSet<>();
        for (Spec s : store.specs().runnerSpecs(runner.id()))
            served.add(s.uuid().toString());
        screen.show(
                ctx,
                200,
                "runner-specs.jte",
                "Specs of " + runner.name(),
                "runners",
                v,
                "page",
                new RunnerSpecs(runner.slug().value(), runner.name(), choices(served)));
    }

    /** Makes the runner serve exactly the checked specs: adds the missing ones, then removes the others. */
    void assignSpecs(Context ctx, Viewer v) throws Exception {
        permit(v, RunnerRoutes.MANAGE);
        permit(v, RunnerRoutes.MANAGE);
        Runner runner = find.runner(ctx.pathParam("runner"));
        String path = "/v0/runners/" + ConsoleApi.segment(runner.uuid().toString()) + "/specs";
        Set<String> wanted = new LinkedHashSet<>(ctx.formParams("spec"));
        Set<String> served = new LinkedHashSet<>();
        for (Spec s : store.specs().runnerSpecs(runner.id()))
            served.add(s.uuid().toString());
        Link back = new Link("/console/runners/" + runner.slug().value() + "/specs", "Back to the runner's specs");
        for (String spec : wanted) {
            if (served.contains(spec)) continue;
            var added = api.call(ctx, "POST", path, Map.of("spec", spec), v.token());
            if (!added.ok()) {
                screen.message(ctx, added.status(), v, "Specs not changed", added.message(), back);
                return;
            }
        }
        for (String spec : served) {
            if (wanted.contains(spec)) continue;
            var removed = api.call(ctx, "DELETE", path + "/" + ConsoleApi.segment(spec), null, v.token());
            if (!removed.ok()) {
                screen.message(ctx, removed.status(), v, "Specs not changed", removed.message(), back);
                return;
            }
        }
        ctx.redirect("/console/runners", HttpStatus.SEE_OTHER);
    }

    // ---- create and edit a spec ------------------------------------------------------------------

    void newSpec(Context ctx, Viewer v) {
        permit(v, SpecRoutes.MANAGE);
        String arch = Architecture.ofHost().map(Architecture::wireName).orElse("x86_64");
        showSpecForm(ctx, 200, v, new SpecForm(null, "", "", arch, "", "", "", false, "", false, null));
    }

    void createSpec(Context ctx, Viewer v) throws Exception {
        permit(v, SpecRoutes.MANAGE);
        SpecForm form = specForm(ctx, null);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", form.name());
        if (!form.slug().isEmpty()) body.put("slug", form.slug());
        body.put("architecture", form.architecture());
        body.put("network", form.network());
        body.put("require_clean_fingerprint", form.requireCleanFingerprint());
        try {
            body.put("cpu", whole("CPUs", form.cpu()));
            body.put("memory", gib("memory", form.memoryGib()));
            body.put("disk", gib("disk", form.diskGib()));
            if (!form.queueTimeout().isEmpty()) body.put("queue_timeout", whole("queue timeout", form.queueTimeout()));
        } catch (IllegalArgumentException e) {
            showSpecForm(ctx, 400, v, withError(form, e.getMessage()));
            return;
        }
        var created = api.call(ctx, "POST", "/v0/specs", body, v.token());
        afterSpecCall(ctx, v, form, created);
    }

    void editSpec(Context ctx, Viewer v) {
        permit(v, SpecRoutes.MANAGE);
        Spec s = find.spec(ctx.pathParam("spec"));
        showSpecForm(
                ctx,
                200,
                v,
                new SpecForm(
                        s.slug().value(),
                        s.name(),
                        s.slug().value(),
                        s.architecture().wireName(),
                        String.valueOf(s.cpu()),
                        gibText(s.memory()),
                        gibText(s.disk()),
                        s.network(),
                        s.queueTimeout() == null ? "" : String.valueOf(s.queueTimeout()),
                        s.requireCleanFingerprint(),
                        null));
    }

    void updateSpec(Context ctx, Viewer v) throws Exception {
        permit(v, SpecRoutes.MANAGE);
        Spec s = find.spec(ctx.pathParam("spec"));
        SpecForm sent = specForm(ctx, s.slug().value());
        // The shape is not editable: the form shows the stored one again, whatever was posted.
        SpecForm form = new SpecForm(
                sent.editing(),
                sent.name(),
                sent.slug(),
                s.architecture().wireName(),
                String.valueOf(s.cpu()),
                gibText(s.memory()),
                gibText(s.disk()),
                s.network(),
                sent.queueTimeout(),
                sent.requireCleanFingerprint(),
                null);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", form.name());
        body.put("slug", form.slug());
        body.put("require_clean_fingerprint", form.requireCleanFingerprint());
        try {
            // Empty clears the spec's own queue timeout (0 on the API), so the server's default applies.
            body.put("queue_timeout", form.queueTimeout().isEmpty() ? 0 : whole("queue timeout", form.queueTimeout()));
        } catch (IllegalArgumentException e) {
            showSpecForm(ctx, 400, v, withError(form, e.getMessage()));
            return;
        }
        var updated = api.call(
                ctx, "PATCH", "/v0/specs/" + ConsoleApi.segment(s.uuid().toString()), body, v.token());
        afterSpecCall(ctx, v, form, updated);
    }

    private void afterSpecCall(Context ctx, Viewer v, SpecForm form, ConsoleApi.Answer answer) {
        if (answer.ok()) {
            ctx.redirect("/console/specs", HttpStatus.SEE_OTHER);
        } else if (answer.status() == 403) {
            screen.message(ctx, 403, v, "Refused", answer.message(), SPECS);
        } else {
            showSpecForm(ctx, answer.status(), v, withError(form, answer.message()));
        }
    }

    private void showSpecForm(Context ctx, int status, Viewer v, SpecForm form) {
        screen.show(
                ctx,
                status,
                "spec-form.jte",
                form.editing() == null ? "New spec" : "Edit spec " + form.editing(),
                "specs",
                v,
                "form",
                form);
    }

    private static SpecForm specForm(Context ctx, String editing) {
        return new SpecForm(
                editing,
                text(ctx.formParam("name")),
                text(ctx.formParam("slug")),
                text(ctx.formParam("architecture")),
                text(ctx.formParam("cpu")),
                text(ctx.formParam("memory")),
                text(ctx.formParam("disk")),
                ctx.formParam("network") != null,
                text(ctx.formParam("queue_timeout")),
                ctx.formParam("require_clean_fingerprint") != null,
                null);
    }

    private static SpecForm withError(SpecForm f, String error) {
        return new SpecForm(
                f.editing(),
                f.name(),
                f.slug(),
                f.architecture(),
                f.cpu(),
                f.memoryGib(),
                f.diskGib(),
                f.network(),
                f.queueTimeout(),
                f.requireCleanFingerprint(),
                error);
    }

    // ---- helpers ---------------------------------------------------------------------------------

    /** Every unarchived spec as a checkbox, checked when its UUID is in {@code chosen}. */
    private List<SpecChoice> choices(Set<String> chosen) {
        List<SpecChoice> all = new ArrayList<>();
        for (Spec s : store.specs().listSpecs(false)) {
            String shape =
                    s.architecture().wireName() + " · " + s.cpu() + " CPU · " + Format.bytes(s.memory()) + " memory";
            all.add(new SpecChoice(
                    s.uuid().toString(),
                    s.slug().value(),
                    s.name(),
                    shape,
                    chosen.contains(s.uuid().toString())));
        }
        return all;
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

    /** GiB as typed (e.g. 0.5 or 16) in bytes; the API bounds the value. */
    private static long gib(String field, String text) {
        try {
            return new BigDecimal(text).multiply(GIB).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(field + " must be a number of GiB (e.g. 0.5 or 16), not '" + text + "'");
        }
    }

    private static String gibText(long bytes) {
        return new BigDecimal(bytes).divide(GIB).stripTrailingZeros().toPlainString();
    }
}
