package dev.baton.server;

import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.channel.RunnerChannel;
import dev.baton.dispatch.pools.ExecProvider;
import dev.baton.dispatch.pools.MicroVmProvider;
import dev.baton.dispatch.pools.PoolProvider;
import dev.baton.dispatch.pools.PoolRoutes;
import dev.baton.dispatch.pools.PoolScaler;
import dev.baton.dispatch.pools.ProcessProvider;
import dev.baton.dispatch.pools.ScalerLoop;
import dev.baton.dispatch.pools.StoreObserver;
import dev.baton.store.Pool;
import dev.baton.store.PoolMachine;
import dev.baton.store.Store;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runner pools in the server (issue 43; docs/runner.md, "Pools"): the providers this server has,
 * the scaler with the observer that reads the store, the loop that runs it on this node (woken
 * when a job becomes pending), the {@code /v0/pools} routes and the pool meters.
 */
record PoolWiring(ScalerLoop loop, PoolRoutes routes) {
    /** Every provider built into the server, by the name a pool's {@code provider} field gives. */
    static Map<String, PoolProvider> providers() {
        Map<String, PoolProvider> all = new LinkedHashMap<>();
        for (PoolProvider p : List.of(new ProcessProvider(), new ExecProvider(), new MicroVmProvider()))
            all.put(p.name(), p);
        return all;
    }

    static PoolWiring wire(BatonServer.Wiring w, RunnerChannel channel, BatonMetrics metrics) {
        Map<String, PoolProvider> providers = providers();
        Store store = w.store();
        PoolScaler scaler = new PoolScaler(
                        store,
                        providers,
                        new StoreObserver(store, id -> channel.activity(id).isPresent()),
                        w.clock(),
                        w.config().nodeId(),
                        w.publicUrl())
                .onRegistered((pool, boot) -> metrics.poolBootTime(pool.slug(), boot));
        ScalerLoop loop = new ScalerLoop(scaler, ScalerLoop.EVERY);
        channel.onJobPending(spec -> {
            if (scaler.mayServe(spec)) loop.wake();
        });
        metrics.pools(List.of("starting", "idle", "busy"), () -> counts(store));
        return new PoolWiring(loop, new PoolRoutes(store, scaler, providers.keySet(), w.clock()));
    }

    private static Map<String, Map<String, Long>> counts(Store store) {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (Pool pool : store.pools().listPools()) {
            Map<String, Long> byState = new LinkedHashMap<>();
            for (PoolMachine m : store.pools().liveMachines(pool.id()))
                byState.merge(m.state().wireName(), 1L, Long::sum);
            byState.put("failed_starts", (long) pool.failedStarts());
            out.put(pool.slug(), byState);
        }
        return out;
    }
}
