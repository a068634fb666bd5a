package dev.baton.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Link;
import dev.baton.web.http.ApiException;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The console's runner noise page (issue 45, decision 0062): each runner's latest noise
 * calibration — every figure's coefficient of variation, when it was measured, and the
 * {@code noisy} flag — and a Measure button per runner. Admin's, like the runners page it is
 * linked from. Both are calls to the API with the viewer's token ({@code GET /v0/runners}, {@code
 * POST /v0/runners/{runner}/noise}), so the figures and the refusals (not connected, busy) are the
 * CLI's.
 */
final class NoisePages {
    private static final Link NOISE = new Link("/console/noise", "Back to runner noise");

    private final ConsoleApi api;
    private final ConsoleScreen screen;

    NoisePages(ConsoleApi api, ConsoleScreen screen) {
        this.api = api;
        this.screen = screen;
    }

    private static void permit(Viewer v) {
        if (!v.admin()) throw new ApiException(403, "forbidden", "this page needs an admin token");
    }

    void list(Context ctx, Viewer v) throws Exception {
        permit(v);
        var answer = api.call(ctx, "GET", "/v0/runners", null, v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Refused", answer.message(), new Link(v.home(), "Back"));
            return;
        }
        List<NoiseRow> rows = new ArrayList<>();
        for (JsonNode r : answer.body()) rows.add(row(r));
        screen.show(ctx, 200, "noise.jte", "Runner noise", "runners", v, "runners", rows);
    }

    /** {@code POST /console/runners/{runner}/noise}: the same call as {@code baton runners noise}. */
    void measure(Context ctx, Viewer v) throws Exception {
        permit(v);
        String runner = ctx.pathParam("runner");
        var answer = api.call(
                ctx,
                "POST",
                "/v0/runners/"
                        + URLEncoder.encode(runner, StandardCharsets.UTF_8).replace("+", "%20") + "/noise",
                null,
                v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not asked", answer.message(), NOISE);
            return;
        }
        screen.message(
                ctx,
                202,
                v,
                "Asked",
                "Runner " + runner + " measures its noise once its wait for a job ends, taking no job meanwhile;"
                        + " its new figures appear here when it has reported them.",
                NOISE);
    }

    static NoiseRow row(JsonNode r) {
        JsonNode n = r.path("noise");
        boolean has = n.isObject();
        return new NoiseRow(
                r.path("slug").asText(),
                r.path("name").asText(),
                r.hasNonNull("archived"),
                has ? n.path("measured").asText() : null,
                number(n.get("cpu_cv")),
                number(n.get("memory_cv")),
                number(n.get("file_cv")),
                has ? number(n.get("cv")) : null,
                n.path("repetitions").asInt(),
                n.path("calibrations").asInt(),
                n.path("noisy").asBoolean());
    }

    private static Double number(JsonNode v) {
        return v == null || !v.isNumber() ? null : v.asDouble();
    }
}
