package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Chrome;
import dev.baton.console.Views.Link;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * How every console page is drawn: a jte template, compiled at build time, inside the page's
 * chrome. The chrome carries the viewer's CSRF token (every form posts it back) and the server's
 * time, so live times do not depend on the browser's clock.
 */
final class TemplateScreen implements ConsoleScreen {
    private final TemplateEngine templates = TemplateEngine.createPrecompiled(ContentType.Html);
    private final Clock clock;

    TemplateScreen(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void show(
            Context ctx, int status, String template, String title, String section, Viewer viewer, Object... params) {
        render(ctx, status, template, chrome(title, section, viewer), params);
    }

    @Override
    public void message(Context ctx, int status, Viewer viewer, String title, String text, Link back) {
        render(ctx, status, "message.jte", chrome(title, "", viewer), "text", text, "back", back);
    }

    Chrome chrome(String title, String section, Viewer viewer) {
        return new Chrome(title, section, viewer.csrf(), viewer.admin(), null, clock.instant());
    }

    /** Renders {@code template} with {@code chrome} and the name-value pairs {@code params} as the whole response. */
    void render(Context ctx, int status, String template, Chrome chrome, Object... params) {
        Map<String, Object> all = new HashMap<>();
        all.put("chrome", chrome);
        for (int i = 0; i < params.length; i += 2) all.put((String) params[i], params[i + 1]);
        StringOutput out = new StringOutput();
        templates.render(template, all, out);
        ctx.status(status).contentType("text/html; charset=utf-8").result(out.toString());
    }
}
