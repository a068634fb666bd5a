package dev.baton.console;

import io.javalin.http.Context;

/** Writes the console's cookies: always HttpOnly and SameSite=Strict, Secure when the console is reached over HTTPS. */
final class Cookies {
    private Cookies() {}

    static void set(Context ctx, String name, String value, String path, int maxAgeSeconds, boolean secure) {
        ctx.res()
                .addHeader(
                        "Set-Cookie",
                        name + "=" + value + "; Path=" + path + "; Max-Age=" + maxAgeSeconds
                                + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : ""));
    }
}
