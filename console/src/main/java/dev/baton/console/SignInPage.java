package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Outcome;
import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.Views.Chrome;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.util.function.Supplier;

/**
 * The sign-in page and sign-out. Before there is a session the form is guarded by a CSRF token of
 * its own, in a short-lived cookie scoped to /console/sign-in; a token {@link ConsoleSignIn}
 * accepts starts the session and drops that cookie. Cookies are Secure when the request or the
 * public URL is HTTPS.
 */
final class SignInPage {
    private final ConsoleSignIn signIn;
    private final TemplateScreen screen;
    private final Supplier<String> publicUrl;

    SignInPage(ConsoleSignIn signIn, TemplateScreen screen, Supplier<String> publicUrl) {
        this.signIn = signIn;
        this.screen = screen;
        this.publicUrl = publicUrl;
    }

    void page(Context ctx) {
        SecurityHeaders.apply(ctx);
        if (signIn.viewer(ctx).isPresent()) {
            ctx.redirect(home(ctx), HttpStatus.SEE_OTHER);
            return;
        }
        show(ctx, 200, null);
    }

    void show(Context ctx, int status, String error) {
        String csrf = Csrf.random();
        Cookies.set(ctx, Csrf.PRE_SESSION_COOKIE, csrf, "/console/sign-in", 3600, secure(ctx));
        screen.render(ctx, status, "signin.jte", new Chrome("Sign in", "sign-in", csrf), "error", error);
    }

    void submit(Context ctx) {
        SecurityHeaders.apply(ctx);
        if (!Csrf.matches(ctx.cookie(Csrf.PRE_SESSION_COOKIE), ctx.formParam(Csrf.FIELD))) {
            show(ctx, 403, "The form expired or did not come from this console; sign in again.");
            return;
        }
        switch (signIn.check(ctx.formParam("token"))) {
            case Outcome.Accepted(Viewer viewer) -> {
                signIn.signIn(ctx, viewer, secure(ctx));
                Cookies.set(ctx, Csrf.PRE_SESSION_COOKIE, "", "/console/sign-in", 0, secure(ctx));
                ctx.redirect(viewer.home(), HttpStatus.SEE_OTHER);
            }
            case Outcome.Refused(String why) -> show(ctx, 401, "Not signed in: " + why + ".");
        }
    }

    void signOut(Context ctx, Viewer viewer) {
        signIn.signOut(ctx, secure(ctx));
        ctx.redirect("/console/sign-in", HttpStatus.SEE_OTHER);
    }

    /** The first page for this request's viewer (the runners page when nobody is signed in: it asks for a sign-in). */
    String home(Context ctx) {
        return signIn.viewer(ctx).map(Viewer::home).orElse("/console/runners");
    }

    private boolean secure(Context ctx) {
        return ctx.req().isSecure() || publicUrl.get().startsWith("https://");
    }
}
