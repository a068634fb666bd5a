package dev.baton.console;

import dev.baton.console.ConsoleSignIn.Viewer;
import dev.baton.console.PoolViews.MachineRow;
import dev.baton.console.PoolViews.PoolRow;
import dev.baton.console.Views.JobRef;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.PoolSettings;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.web.http.ApiException;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The console's pool page (issue 43): every runner pool with its settings and its provider's
 * back-off, and its machines, the live ones and the last that ended, each with its state, age, the
 * runner it is and the job it took. Server-wide, so the admin's, like the runners page it is
 * linked from; read from the store as the other fleet pages are.
 */
final class PoolPages {
    /** Ended machines kept on the page per pool, newest first, after the live ones. */
    static final int ENDED_SHOWN = 20;

    private final Store store;
    private final Clock clock;
    private final ConsoleScreen screen;

    PoolPages(Store store, Clock clock, ConsoleScreen screen) {
        this.store = store;
        this.clock = clock;
        this.screen = screen;
    }

    void list(Context ctx, Viewer v) {
        if (!v.admin()) throw new ApiException(403, "forbidden", "this page needs an admin token");
        Instant now = clock.instant();
        List<PoolRow> rows = new ArrayList<>();
        for (Pool pool : store.pools().listPools()) rows.add(row(pool, now));
        screen.show(ctx, 200, "pools.jte", "Pools", "runners", v, "pools", rows);
    }

    private PoolRow row(Pool pool, Instant now) {
        PoolSettings s = pool.settings();
        List<MachineRow> machines = new ArrayList<>();
        for (PoolMachine m : store.pools().machines(pool.id(), ENDED_SHOWN)) machines.add(machine(m, now));
        Instant backoff = pool.backoffUntil() != null && pool.backoffUntil().isAfter(now) ? pool.backoffUntil() : null;
        return new PoolRow(
                pool.slug(),
                store.specs().findSpec(s.specId()).map(Spec::name).orElse("—"),
                labels(s.labels()),
                s.provider(),
                s.minIdle(),
                s.max(),
                Format.duration(s.idleTimeout()),
                Format.duration(s.bootTimeout()),
                pool.reason(),
                backoff,
                pool.failedStarts(),
                machines);
    }

    private MachineRow machine(PoolMachine m, Instant now) {
        String runner = m.runnerId() == null
                ? null
                : store.runners()
                        .findRunner(m.runnerId())
                        .map(r -> r.slug().value())
                        .orElse(null);
        JobRef job = m.jobId() == null
                ? null
                : store.runs()
                        .findJob(m.jobId())
                        .flatMap(j -> store.organizations()
                                .findProject(j.projectId())
                                .map(p -> new JobRef(p.slug().value(), j.uuid().toString())))
                        .orElse(null);
        return new MachineRow(
                m.uuid().toString().substring(0, 8),
                m.state().wireName(),
                m.providerId(),
                runner,
                job,
                m.reason(),
                m.started(),
                Format.between(m.started(), m.ended() == null ? now : m.ended()),
                m.state().ended());
    }

    private static String labels(Map<String, String> labels) {
        return new TreeMap<>(labels)
                .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
    }
}
