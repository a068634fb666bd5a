package dev.baton.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.console.ConsoleSignIn.Viewer;
import io.javalin.http.Context;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * {@code GET /console/projects/{p}/jobs/{j}/log.txt}: the job's whole log as {@code text/plain},
 * for download. It pages through the API's own log ({@code GET /v0/…/logs?after=}, 1 MiB a page)
 * with the viewer's token and streams each page's text out: the same entries the viewer shows, from
 * the live tail while the job runs and from the stored output once it ended. A stretch the server
 * did not keep is a line saying how many bytes are missing.
 */
final class RawLog {
    private final ConsoleApi api;

    RawLog(ConsoleApi api) {
        this.api = api;
    }

    void serve(Context ctx, Viewer viewer) throws Exception {
        String project = ctx.pathParam("project");
        String job = ctx.pathParam("job");
        String path = "/v0/projects/" + project + "/jobs/" + job + "/logs?after=";
        ConsoleApi.Answer first = api.call(ctx, "GET", path + 0, null, viewer.token());
        if (!first.ok()) {
            ctx.status(first.status()).contentType("text/plain; charset=utf-8").result(first.message() + "\n");
            return;
        }
        ctx.status(200).contentType("text/plain; charset=utf-8");
        ctx.header("Content-Disposition", "attachment; filename=\"job-" + shortId(job) + ".log\"");
        OutputStream out = ctx.res().getOutputStream();
        ConsoleApi.Answer page = first;
        while (true) {
            JsonNode body = page.body();
            JsonNode entries = body.path("entries");
            for (JsonNode e : entries) {
                String text = e.has("dropped") && !e.get("dropped").isNull()
                        ? "[" + e.get("dropped").asLong() + " bytes not kept]\n"
                        : e.path("text").asText("");
                out.write(text.getBytes(StandardCharsets.UTF_8));
            }
            long next = body.path("next").asLong();
            // "complete": the job ended and this page reached the end; an empty page: all there is now (a running job's
            // log goes on).
            if (entries.isEmpty() || body.path("complete").asBoolean(false)) break;
            page = api.call(ctx, "GET", path + next, null, viewer.token());
            if (!page.ok()) break;
        }
        out.flush();
    }

    private static String shortId(String job) {
        return job.length() > 8 ? job.substring(0, 8) : job;
    }
}
