package dev.baton.server.console;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.server.auth.AdminAuth;
import dev.baton.server.store.Project;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * Who is signed in to the console, and the only place that decides it. Today the admin token
 * signs in, checked by the same {@link dev.baton.server.auth.AdminToken#matches} that guards the
 * {@code /v0} routes ({@link AdminAuth}). When users and scoped tokens exist (issue 20), this class
 * switches to their principal and roles; the rest of the console asks only {@link #viewer}.
 *
 * <p>The session is the token itself in an HttpOnly, SameSite=Strict cookie: scripts cannot read
 * it, other sites cannot send it, the server stores nothing, and a changed token ends every
 * session at once. Its CSRF token is derived from it ({@link Csrf}), so it holds across restarts
 * and server nodes without a table.
 */
public final class ConsoleSignIn {
    static final String COOKIE = "baton_console";
    /** How long a browser keeps the sign-in (it is checked again on every request anyway). */
    static final int MAX_AGE_SECONDS = 12 * 60 * 60;

    /**
     * A signed-in person: the credential the console acts with (against /v0), the CSRF token of
     * their forms, and what they may read (the console's reads come from the store, not /v0).
     * Today every viewer is the admin; a scoped token (issue 20) gets {@code admin} false and
     * {@link #mayRead} answers from its projects.
     */
    public record Viewer(String token, String csrf, boolean admin) {
        /** Whether the viewer may see this project's jobs and registry. */
        public boolean mayRead(Project project) {
            return admin;
        }

        @Override
        public String toString() {
            return "Viewer[redacted]";
        }
    }

    /** Why a token was refused, in words for the sign-in page. */
    public sealed interface Outcome {
        record Accepted(Viewer viewer) implements Outcome {}

        record Refused(String why) implements Outcome {}
    }

    private final AdminAuth admin;

    public ConsoleSignIn(AdminAuth admin) {
        this.admin = admin;
    }

    /** The signed-in viewer of this request, empty when the cookie is missing or no longer valid. */
    Optional<Viewer> viewer(Context ctx) {
        String token = ctx.cookie(COOKIE);
        if (token == null || !admin.token().matches(token)) return Optional.empty();
        return Optional.of(new Viewer(token, Csrf.ofSession(token), true));
    }

    /** Checks a token typed into the sign-in form, as the /v0 routes would check it as a bearer token. */
    Outcome check(String token) {
        if (token == null || token.isBlank()) return new Outcome.Refused("enter a token");
        String t = token.strip();
        if (admin.token().matches(t)) return new Outcome.Accepted(new Viewer(t, Csrf.ofSession(t), true));
        if (t.startsWith(RunnerKey.PREFIX)) return new Outcome.Refused("a runner key cannot sign in; use the admin token");
        return new Outcome.Refused("that token is not valid");
    }

    void signIn(Context ctx, Viewer viewer, boolean secure) {
        Cookies.set(ctx, COOKIE, viewer.token(), "/", MAX_AGE_SECONDS, secure);
    }

    void signOut(Context ctx, boolean secure) {
        Cookies.set(ctx, COOKIE, "", "/", 0, secure);
    }
}
