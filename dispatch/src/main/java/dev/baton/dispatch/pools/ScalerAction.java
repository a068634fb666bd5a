package dev.baton.dispatch.pools;

import dev.baton.store.PoolMachine;
import dev.baton.store.PoolMachineState;

/** What the scaler decided for one pool; {@link PoolScaler} carries it out. */
public sealed interface ScalerAction {
    /** Start a machine: for {@code job} (its runner bound to it), or an idle one for {@code min_idle} (job null). */
    record Start(Long job) implements ScalerAction {}

    /** Record what the server saw of a machine's runner: registered (idle), took its job (busy). */
    record Move(PoolMachine machine, PoolMachineState to, Long job) implements ScalerAction {}

    /** Stop a machine and end it as {@code end} (stopped, or failed: counted as a failed start). */
    record Stop(PoolMachine machine, String reason, PoolMachineState end) implements ScalerAction {}

    /** No start now: the provider backs off; {@code reason} is shown on the pool and on waiting jobs. */
    record Blocked(String reason) implements ScalerAction {}
}
