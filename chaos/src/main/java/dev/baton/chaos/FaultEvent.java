package dev.baton.chaos;

import java.time.Instant;
import java.util.List;

/**
 * One injected fault.
 *
 * @param kind      what was done
 * @param target    the process (runner slug, node name) or "balancer"
 * @param at        when the fault began (SIGKILL, SIGSTOP, the reset)
 * @param restored  when the process was started again (after a kill: a node once it is ready) or continued (SIGCONT)
 * @param count     connections reset (drops), else 1
 */
record FaultEvent(Kind kind, String target, Instant at, Instant restored, int count) {
    enum Kind {
        RUNNER_SIGKILL,
        SERVER_SIGKILL,
        RUNNER_SIGSTOP,
        CONNECTIONS_DROPPED,
        /**
         * A server node frozen past the node timeout, then continued: the other nodes find it dead
         * and run its jobs again, and the final words of the moved attempts, queued on its runners'
         * connections, reach it late. Only with more than one node (alone, nobody takes over).
         */
        SERVER_SIGSTOP,
        /**
         * The NATS broker killed and started again on its store: offers it held
         * are delivered again or, past their acceptance window, offered again from the database.
         * Only when the run has a broker.
         */
        BROKER_SIGKILL,
        /**
         * The pool scenario: SIGKILL of the node holding the scaler lease while a machine of the
         * pool boots. With several nodes it stays down until another node started a machine (the
         * lease moved, after its 15 s) or 60 s passed; alone, it is started again 0.5–2 s later
         * and takes its own machines back.
         */
        SCALER_NODE_SIGKILL,
        /** The pool scenario: SIGKILL of a pool machine's runner process while its machine is starting. */
        POOL_RUNNER_SIGKILL_AT_BOOT;

        /** The kinds the pool scenario injects (the provider's refused starts come from its command, not from here). */
        static List<Kind> injectedInPool() {
            return List.of(SCALER_NODE_SIGKILL, POOL_RUNNER_SIGKILL_AT_BOOT);
        }

        /** The kinds a run on {@code nodes} server nodes, with or without a broker, injects. */
        static List<Kind> injected(int nodes, boolean broker) {
            List<Kind> kinds = new java.util.ArrayList<>(
                    List.of(RUNNER_SIGKILL, SERVER_SIGKILL, RUNNER_SIGSTOP, CONNECTIONS_DROPPED));
            if (nodes > 1) kinds.add(SERVER_SIGSTOP);
            if (broker) kinds.add(BROKER_SIGKILL);
            return List.copyOf(kinds);
        }
    }
}
