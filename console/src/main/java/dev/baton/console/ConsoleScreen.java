package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Confirmation;
import dev.baton.console.Views.Link;
import io.javalin.http.Context;

/** How page classes beside {@link ConsoleModule} render: they name the template and title; {@link TemplateScreen} owns the templates and each page's chrome. */
interface ConsoleScreen {
    void show(Context ctx, int status, String template, String title, String section, Viewer viewer, Object... params);

    void message(Context ctx, int status, Viewer viewer, String title, String text, Link back);

    /** A message with a way back to the viewer's first page, one it may see. */
    default void message(Context ctx, int status, Viewer viewer, String title, String text) {
        message(
                ctx,
                status,
                viewer,
                title,
                text,
                new Link(viewer.home(), viewer.admin() ? "Back to the runners" : "Back to the projects"));
    }

    /**
     * Whether a destructive action's form said yes ({@code confirm=yes}, sent only by the
     * confirmation page); otherwise shows that page and changes nothing. Asked on the server, so a
     * post without the yes (a stray click, a script, no JavaScript) never acts.
     */
    default boolean confirmed(Context ctx, Viewer v, Confirmation confirmation) {
        if ("yes".equals(ctx.formParam("confirm"))) return true;
        show(ctx, 200, "confirm.jte", "Are you sure?", "", v, "confirm", confirmation);
        return false;
    }
}
