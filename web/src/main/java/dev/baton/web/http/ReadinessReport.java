package dev.baton.web.http;

/**
 * A part of the server that says how it is doing in {@code GET /ready} beside the database (the
 * broker of transport A, say). It informs and does not decide: only the database makes a node
 * not ready, because every node shares the other parts, and a load balancer taking nodes out for
 * them would take out all of them at once.
 */
public interface ReadinessReport {
    /** The key in the answer ({@code broker}). */
    String readinessName();

    /** Its state now, as JSON ({@code {"state": "connected"}}); must not block. */
    Object readiness();
}
