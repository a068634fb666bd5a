package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Link;
import io.javalin.http.Context;

/** How page classes beside {@link ConsoleModule} render: ConsoleModule owns the templates and each page's chrome. */
interface ConsoleScreen {
    void show(Context ctx, int status, String template, String title, String section, Viewer viewer, Object... params);

    void message(Context ctx, int status, Viewer viewer, String title, String text, Link back);
}
