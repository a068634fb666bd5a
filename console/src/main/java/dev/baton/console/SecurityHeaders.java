package dev.baton.console;

import io.javalin.http.Context;

/**
 * Headers on every console response. The Content-Security-Policy allows scripts, styles and
 * connections only from this server ('self': no inline script, no eval, no CDN), frames from
 * nowhere; htmx is configured (layout) not to inject inline styles or evaluate code.
 */
final class SecurityHeaders {
    static final String CSP =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                    + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private SecurityHeaders() {}

    static void apply(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "same-origin");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Cache-Control", "no-store");
    }
}
