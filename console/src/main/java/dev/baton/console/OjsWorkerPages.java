package dev.baton.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Link;
import dev.baton.web.http.ApiException;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The console's OJS workers page (issue 47): every worker of the Open Job Spec binding with its
 * state, and quiet, terminate and resume for the admin. The binding is the admin's alone
 * (docs/ojs.md), so the page and its posts are refused to any other viewer before the API is
 * called; the list and each direction are calls to {@code /ojs/v1} with the viewer's token
 * ({@link ConsoleApi}), so the binding checks and audits them exactly as for the CLI.
 */
final class OjsWorkerPages {
    private static final Link WORKERS = new Link("/console/ojs-workers", "Back to the OJS workers");
    private static final Set<String> DIRECTIONS = Set.of("quiet", "terminate", "resume");

    private final ConsoleApi api;
    private final ConsoleScreen screen;

    OjsWorkerPages(ConsoleApi api, ConsoleScreen screen) {
        this.api = api;
        this.screen = screen;
    }

    /** The OJS binding is server-wide: only the admin token may read or steer its workers. */
    private static void permit(Viewer v) {
        if (!v.admin())
            throw new ApiException(403, "forbidden", "OJS workers are the admin's: this needs the admin token");
    }

    void list(Context ctx, Viewer v) throws Exception {
        permit(v);
        var answer = api.call(ctx, "GET", "/ojs/v1/workers", null, v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Refused", answer.message(), new Link(v.home(), "Back"));
            return;
        }
        List<OjsWorkerRow> rows = new ArrayList<>();
        for (JsonNode w : answer.body().path("workers")) rows.add(row(w));
        screen.show(ctx, 200, "ojs-workers.jte", "OJS workers", "ojs-workers", v, "workers", rows);
    }

    /** {@code POST /console/ojs-workers/{worker}/{direction}}: the same call as {@code baton ojs workers quiet}. */
    void direct(Context ctx, Viewer v) throws Exception {
        permit(v);
        String direction = ctx.pathParam("direction");
        if (!DIRECTIONS.contains(direction)) {
            throw ApiException.notFound("not_found", "no direction '" + direction + "'");
        }
        String worker = ctx.pathParam("worker");
        var answer = api.call(
                ctx,
                "POST",
                "/ojs/v1/workers/"
                        + URLEncoder.encode(worker, StandardCharsets.UTF_8).replace("+", "%20") + "/" + direction,
                null,
                v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not directed", answer.message(), WORKERS);
            return;
        }
        ctx.redirect("/console/ojs-workers", HttpStatus.SEE_OTHER);
    }

    private static OjsWorkerRow row(JsonNode w) {
        List<String> queues = new ArrayList<>();
        for (JsonNode q : w.path("queues")) queues.add(q.asText());
        return new OjsWorkerRow(
                w.path("worker_id").asText(),
                queues,
                w.path("state").asText(),
                text(w.get("directed_state")),
                text(w.get("hostname")),
                text(w.get("pid")),
                text(w.get("last_beat_at")),
                w.path("active_jobs").asInt(),
                w.path("registered").asBoolean());
    }

    private static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }
}
