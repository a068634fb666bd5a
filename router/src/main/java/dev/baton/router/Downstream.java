package dev.baton.router;

import java.time.Instant;
import java.util.Set;

/** A runner behind the router, connected or not. Touched only by the event loop. */
final class Downstream {
    final String name;
    Set<String> specs;
    Link link;
    Instant lastValid;
    /** Jobs it asked for with its current {@code ready} and has not been handed yet. */
    int free;
    boolean waiting;
    Instant pollDeadline;

    Downstream(String name, Set<String> specs) {
        this.name = name;
        this.specs = specs;
    }

    boolean canTake(HeldJob job) {
        return link != null && waiting && free > 0 && specs.contains(job.spec()) && !job.declinedBy.contains(name);
    }
}
