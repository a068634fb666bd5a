package dev.baton.api;

import dev.baton.dispatch.JobEvents;
import dev.baton.dispatch.JobQueue;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.registry.Images;
import dev.baton.store.Store;
import dev.baton.web.auth.AccessControl;
import dev.baton.web.auth.SubmissionLimiter;
import dev.baton.web.http.Json;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * What the management routes share: the store, the clock, access control and the submission limit, the body bound, where
 * dispatch hears about new and canceled jobs, job output, and the server's public URL (known only
 * once the port is bound, hence a supplier), what dispatch says about queued jobs, and the
 * project registries' images (to refuse a run whose image does not exist).
 */
public record ApiContext(
        Store store,
        Clock clock,
        AccessControl access,
        SubmissionLimiter submissions,
        long requestBodyMaxBytes,
        JobEvents jobEvents,
        OutputStore outputs,
        Supplier<String> publicUrl,
        JobQueue queue,
        Images images) {

    public Instant now() {
        return clock.instant();
    }

    public <T> T body(Context ctx, Class<T> type) {
        return Json.decode(Json.readBody(ctx, requestBodyMaxBytes), type);
    }
}
