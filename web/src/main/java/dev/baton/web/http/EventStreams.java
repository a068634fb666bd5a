package dev.baton.web.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.OutputStream;

/** Starts a Server-Sent Events response (job logs, the console's change events). */
public final class EventStreams {
    private EventStreams() {}

    /** Sets status and headers of an event stream (no caching; nginx told not to buffer) and returns its body. */
    public static OutputStream open(Context ctx) throws IOException {
        ctx.status(200);
        var res = ctx.res();
        res.setCharacterEncoding("UTF-8");
        res.setContentType("text/event-stream");
        res.setHeader("Cache-Control", "no-cache");
        res.setHeader("X-Accel-Buffering", "no");
        return res.getOutputStream();
    }
}
