package dev.baton.chaos;

import java.time.Instant;

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
        CONNECTIONS_DROPPED
    }
}
