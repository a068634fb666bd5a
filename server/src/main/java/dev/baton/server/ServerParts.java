package dev.baton.server;

import dev.baton.dispatch.JobEvents;
import dev.baton.dispatch.JobQueue;
import dev.baton.web.http.AfterHttpStart;
import dev.baton.web.http.BeforeHttpStop;
import dev.baton.web.http.ReadinessReport;
import dev.baton.web.http.RouteModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What an assembly adds to a {@link BatonServer}, each role said where the part is built: the
 * server finds nothing by its type. Route modules are registered in the order they are added,
 * after the server's own; parts are closed in the reverse of the order they were added.
 */
public final class ServerParts {
    private JobEvents events = JobEvents.NONE;
    private JobQueue queue = JobQueue.UNKNOWN;
    private final List<RouteModule> routes = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<ReadinessReport> readiness = new ArrayList<>();
    private final List<AfterHttpStart> afterStart = new ArrayList<>();
    private final List<BeforeHttpStop> beforeStop = new ArrayList<>();

    ServerParts() {}

    /** Who hears about submitted and canceled jobs (dispatch); default nobody. */
    public ServerParts jobEvents(JobEvents events) {
        this.events = Objects.requireNonNull(events);
        return this;
    }

    /** Who answers what the API asks about queued jobs; default {@link JobQueue#UNKNOWN}. */
    public ServerParts queue(JobQueue queue) {
        this.queue = Objects.requireNonNull(queue);
        return this;
    }

    public ServerParts routes(RouteModule module) {
        routes.add(Objects.requireNonNull(module));
        return this;
    }

    /** Closed when the server stops, after HTTP has stopped. */
    public ServerParts closeWithServer(AutoCloseable part) {
        closeables.add(Objects.requireNonNull(part));
        return this;
    }

    /** Its state is part of {@code GET /ready}. */
    public ServerParts readiness(ReadinessReport report) {
        readiness.add(Objects.requireNonNull(report));
        return this;
    }

    /** Told how this node is reached, once HTTP listens. */
    public ServerParts afterHttpStart(AfterHttpStart part) {
        afterStart.add(Objects.requireNonNull(part));
        return this;
    }

    /** Acts first when the server stops, while HTTP still serves (runner channels closed with 4003). */
    public ServerParts beforeHttpStop(BeforeHttpStop part) {
        beforeStop.add(Objects.requireNonNull(part));
        return this;
    }

    JobEvents events() {
        return events;
    }

    JobQueue queue() {
        return queue;
    }

    List<RouteModule> routes() {
        return routes;
    }

    List<AutoCloseable> closeables() {
        return closeables;
    }

    List<ReadinessReport> readiness() {
        return readiness;
    }

    List<AfterHttpStart> afterStart() {
        return afterStart;
    }

    List<BeforeHttpStop> beforeStop() {
        return beforeStop;
    }
}
