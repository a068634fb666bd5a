package dev.baton.web.auth;

import dev.baton.protocol.value.RunnerKey;
import dev.baton.web.http.ApiException;
import io.javalin.http.Context;
import io.javalin.http.Handler;

/** Guards management routes: {@code Authorization: Bearer <admin token>} or 401/403. */
public final class AdminAuth {
    private final AdminToken token;

    public AdminAuth(AdminToken token) {
        this.token = token;
    }

    /** The token itself, for other parts that accept it (the registry's basic auth). */
    public AdminToken token() {
        return token;
    }

    public Handler guard(Handler handler) {
        return ctx -> {
            check(ctx);
            handler.handle(ctx);
        };
    }

    public void check(Context ctx) {
        String presented = BearerToken.of(ctx.header("Authorization"))
                .orElseThrow(() ->
                        new ApiException(401, "unauthorized", "missing 'Authorization: Bearer <admin token>' header"));
        if (token.matches(presented)) return;
        // A runner key is a real credential, just not for this: say so rather than "invalid".
        if (presented.startsWith(RunnerKey.PREFIX)) {
            throw new ApiException(403, "forbidden", "runner keys cannot use the management API; use the admin token");
        }
        throw new ApiException(401, "unauthorized", "invalid admin token");
    }
}
