package dev.baton.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Confirmation;
import dev.baton.console.Views.Link;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The console's code hosts page of a project (docs/pull-requests.md, docs/console.md): its GitHub
 * repositories and GitLab projects, each with its newest delivery, a form that adds one or gives
 * the one of the same kind and repository a new token (as {@code baton code-hosts set}), and
 * delete after a confirmation. Every read and change is a call to {@code /v0/projects/{project}/
 * code-hosts} with the viewer's token ({@link ConsoleApi}), so the API decides who may (maintainer
 * and up) and audits it; a token typed into the form is sent to the API and never rendered back.
 */
final class CodeHostPages {
    /** What a change's redirect says it did ({@code ?done=}): fixed words, never text from the address. */
    private static final Map<String, String> DONE = Map.of(
            "added", "Added the code host.",
            "replaced", "Replaced the code host's token.",
            "deleted", "Deleted the code host.");

    private final ConsoleApi api;
    private final ConsoleScreen screen;

    CodeHostPages(ConsoleApi api, ConsoleScreen screen) {
        this.api = api;
        this.screen = screen;
    }

    private static String apiPath(Context ctx) {
        return "/v0/projects/" + ConsoleApi.segment(ctx.pathParam("project")) + "/code-hosts";
    }

    private static String pagePath(Context ctx) {
        return "/console/projects/" + ConsoleApi.segment(ctx.pathParam("project")) + "/code-hosts";
    }

    /** {@code GET /console/projects/{project}/code-hosts}. */
    void page(Context ctx, Viewer v) throws Exception {
        String done = ctx.queryParam("done");
        show(ctx, v, 200, new CodeHostForm("github", "", "", null, done == null ? null : DONE.get(done)));
    }

    private void show(Context ctx, Viewer v, int status, CodeHostForm form) throws Exception {
        var answer = api.call(ctx, "GET", apiPath(ctx), null, v.token());
        if (!answer.ok()) {
            screen.message(
                    ctx,
                    answer.status(),
                    v,
                    answer.status() == 404 ? "Not found" : "Refused",
                    answer.message(),
                    new Link(v.home(), "Back"));
            return;
        }
        List<CodeHostRow> rows = new ArrayList<>();
        for (JsonNode h : answer.body().path("code_hosts")) {
            String uuid = h.path("uuid").asText();
            var log = api.call(
                    ctx, "GET", apiPath(ctx) + "/" + ConsoleApi.segment(uuid) + "/deliveries?limit=1", null, v.token());
            JsonNode last = log.ok() ? log.body().path("deliveries").path(0) : null;
            rows.add(new CodeHostRow(
                    uuid,
                    h.path("kind").asText(),
                    h.path("repository").asText(),
                    h.path("api_url").asText(),
                    h.path("created").asText(),
                    last == null || last.isMissingNode() ? null : delivery(last)));
        }
        String project = ctx.pathParam("project");
        screen.show(
                ctx,
                status,
                "code-hosts.jte",
                "Code hosts · " + project,
                "projects",
                v,
                "project",
                ConsoleApi.segment(project),
                "hosts",
                rows,
                "form",
                form);
    }

    /** A delivery in a few words: delivered, or how it failed and whether it is tried again. */
    private static String delivery(JsonNode d) {
        String number = "#" + d.path("number").asText();
        if (!d.path("delivered").isNull() && !d.path("delivered").isMissingNode())
            return number + " delivered " + d.path("delivered").asText();
        String error = d.path("last_error").isNull()
                ? "not tried yet"
                : d.path("last_error").asText();
        boolean again =
                !d.path("next_attempt").isNull() && !d.path("next_attempt").isMissingNode();
        return number + " " + error + " (" + d.path("attempts").asInt() + " attempts"
                + (again ? ", next " + d.path("next_attempt").asText() : ", given up") + ")";
    }

    /**
     * {@code POST /console/projects/{project}/code-hosts}: adds the host, or replaces the token of
     * the one of the same kind and repository (its sticky comments stay), as the CLI's {@code set}.
     */
    void set(Context ctx, Viewer v) throws Exception {
        String kind = value(ctx, "kind");
        String repository = value(ctx, "repository");
        String apiUrl = value(ctx, "api_url");
        String token = value(ctx, "token");
        CodeHostForm again = new CodeHostForm(kind, repository, apiUrl, null, null);
        Map<String, Object> body = new LinkedHashMap<>();
        if (!kind.isEmpty()) body.put("kind", kind);
        if (!repository.isEmpty()) body.put("repository", repository);
        if (!token.isEmpty()) body.put("token", token);
        if (!apiUrl.isEmpty()) body.put("api_url", apiUrl);
        String existing = null;
        var list = api.call(ctx, "GET", apiPath(ctx), null, v.token());
        if (list.ok()) {
            for (JsonNode h : list.body().path("code_hosts"))
                if (h.path("kind").asText().equals(kind)
                        && h.path("repository").asText().equals(repository))
                    existing = h.path("uuid").asText();
        }
        var answer = existing == null
                ? api.call(ctx, "POST", apiPath(ctx), body, v.token())
                : api.call(ctx, "PUT", apiPath(ctx) + "/" + ConsoleApi.segment(existing), body, v.token());
        if (answer.status() == 400) {
            show(
                    ctx,
                    v,
                    400,
                    new CodeHostForm(again.kind(), again.repository(), again.apiUrl(), answer.message(), null));
            return;
        }
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not saved", answer.message(), new Link(pagePath(ctx), "Back"));
            return;
        }
        ctx.redirect(pagePath(ctx) + "?done=" + (existing == null ? "added" : "replaced"), HttpStatus.SEE_OTHER);
    }

    /** {@code POST /console/projects/{project}/code-hosts/{host}/delete}, after a confirmation. */
    void delete(Context ctx, Viewer v) throws Exception {
        String host = ctx.pathParam("host");
        if (!"yes".equals(ctx.formParam("confirm"))) {
            screen.show(
                    ctx,
                    200,
                    "confirm.jte",
                    "Are you sure?",
                    "",
                    v,
                    "confirm",
                    new Confirmation(
                            "Delete code host " + host + "?",
                            "Its results stop going to the pull requests; deliveries not made yet are dropped.",
                            pagePath(ctx) + "/" + ConsoleApi.segment(host) + "/delete",
                            Map.of(),
                            "Delete",
                            new Link(pagePath(ctx), "Back to the code hosts")));
            return;
        }
        var answer = api.call(ctx, "DELETE", apiPath(ctx) + "/" + ConsoleApi.segment(host), null, v.token());
        if (!answer.ok()) {
            screen.message(ctx, answer.status(), v, "Not deleted", answer.message(), new Link(pagePath(ctx), "Back"));
            return;
        }
        ctx.redirect(pagePath(ctx) + "?done=deleted", HttpStatus.SEE_OTHER);
    }

    private static String value(Context ctx, String field) {
        String v = ctx.formParam(field);
        return v == null ? "" : v.strip();
    }
}
