package dev.baton.console;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.store.Project;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.Authenticator;
import dev.baton.web.auth.Principal;
import io.javalin.http.Context;
import java.util.Optional;

/**
 * Who is signed in to the console, and the only place that decides it: the admin token or a user's
 * API token, checked by the same {@link Authenticator} that guards the {@code /v0} routes, the
 * registry and the OJS binding, with the token's roles read again on every request (a revoked
 * token or a removed membership ends the session at once). The rest of the console asks only
 * {@link #viewer}.
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
     * A signed-in person: the credential the console acts with (against /v0, which applies its own
     * role checks), the CSRF token of their forms, and who they are, which decides what they may
     * read (the console's reads come from the store, not /v0).
     */
    public record Viewer(String token, String csrf, Principal principal) {
        /** Server-wide pages (runners, specs, the whole queue) are the admin's. */
        public boolean admin() {
            return principal instanceof Principal.Admin;
        }

        /** Whether the viewer may see this project's jobs and registry: any role on it (viewer and up). */
        public boolean mayRead(Project project) {
            return AccessControl.roleOn(principal, project).isPresent();
        }

        /** Where the console starts for this viewer: the runners for the admin, the projects otherwise. */
        public String home() {
            return admin() ? "/console/runners" : "/console/projects";
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

    private final Authenticator authenticator;

    public ConsoleSignIn(Authenticator authenticator) {
        this.authenticator = authenticator;
    }

    /** The signed-in viewer of this request, empty when the cookie is missing or no longer valid. */
    Optional<Viewer> viewer(Context ctx) {
        String token = ctx.cookie(COOKIE);
        if (token == null) return Optional.empty();
        return authenticator.authenticate(token).map(p -> new Viewer(token, Csrf.ofSession(token), p));
    }

    /** Checks a token typed into the sign-in form, as the /v0 routes would check it as a bearer token. */
    Outcome check(String token) {
        if (token == null || token.isBlank()) return new Outcome.Refused("enter a token");
        String t = token.strip();
        Optional<Principal> principal = authenticator.authenticate(t);
        if (principal.isPresent()) return new Outcome.Accepted(new Viewer(t, Csrf.ofSession(t), principal.get()));
        if (t.startsWith(RunnerKey.PREFIX))
            return new Outcome.Refused("a runner key cannot sign in; use the admin token or an API token");
        return new Outcome.Refused("that token is not valid");
    }

    void signIn(Context ctx, Viewer viewer, boolean secure) {
        Cookies.set(ctx, COOKIE, viewer.token(), "/", MAX_AGE_SECONDS, secure);
    }

    void signOut(Context ctx, boolean secure) {
        Cookies.set(ctx, COOKIE, "", "/", 0, secure);
    }
}
