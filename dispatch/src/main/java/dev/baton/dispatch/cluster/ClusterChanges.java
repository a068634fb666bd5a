package dev.baton.dispatch.cluster;

import dev.baton.core.events.Changes;
import dev.baton.protocol.id.JobUuid;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's change feed across nodes (docs/decisions/0016-cross-node-live.md): {@link #watched()}
 * is this node's dispatch {@link Changes} plus those of the other nodes, relayed over the
 * {@link ClusterBus}. A node with console watchers says so ({@link ClusterEvent.Watching}) every
 * {@link #ANNOUNCE}; a node that heard it within {@link #INTEREST} sends its own changes, merged
 * over {@link #FLUSH} into one {@link ClusterEvent.Changed} (a few per flush when many jobs
 * changed). Nobody watching anywhere: nothing is sent, the dispatch path only checks a time.
 * A change carries no state (the page reads the store again), so a lost event costs a refresh.
 */
public final class ClusterChanges implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterChanges.class);
    /** How long changes are merged before they are sent: the delay another node's console sees beyond the bus's own. */
    static final Duration FLUSH = Duration.ofMillis(200);
    /** How often a node with watchers says so. */
    static final Duration ANNOUNCE = Duration.ofSeconds(10);
    /** How long a node sends its changes after it last heard that another node watches. */
    static final Duration INTEREST = Duration.ofSeconds(30);
    /** Job ids per event, so that a payload stays far below NOTIFY's 8000 bytes (36 characters and quotes each). */
    static final int JOBS_PER_EVENT = 150;

    private final Changes watched = new Changes();
    private final ClusterBus bus;
    private final Clock clock;
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-cluster-changes").daemon().factory());
    private volatile Instant othersWatchUntil = Instant.MIN;
    private Instant announced = Instant.MIN;
    /** Changes not sent yet; guarded by this. */
    private final Set<JobUuid> jobs = new LinkedHashSet<>();

    private boolean runners;

    public ClusterChanges(Changes local, ClusterBus bus, Clock clock) {
        this.bus = bus;
        this.clock = clock;
        local.subscribe(this::changedHere);
    }

    /** What the console hears: this node's changes and the other nodes'. */
    public Changes watched() {
        return watched;
    }

    /** Starts announcing and sending (not on a single node: nobody else could hear). */
    public void start() {
        if (bus == ClusterBus.LOCAL) return;
        long every = FLUSH.toMillis();
        ticker.scheduleWithFixedDelay(this::tickQuietly, every, every, TimeUnit.MILLISECONDS);
    }

    /** Runs on the thread that raised the change (dispatch): hands it on, nothing more. */
    private void changedHere(Changes.Change change) {
        switch (change) {
            case Changes.RunnersChanged r -> watched.runners();
            case Changes.JobChanged j -> watched.job(j.job());
        }
        if (!clock.instant().isBefore(othersWatchUntil)) return;
        synchronized (this) {
            switch (change) {
                case Changes.RunnersChanged r -> runners = true;
                case Changes.JobChanged j -> jobs.add(j.job());
            }
        }
    }

    /** What another node said about watching or changes. */
    public void heard(ClusterEvent event) {
        switch (event) {
            case ClusterEvent.Watching w -> othersWatchUntil = clock.instant().plus(INTEREST);
            case ClusterEvent.Changed c -> {
                if (c.runners()) watched.runners();
                c.jobs().forEach(watched::job);
            }
            // Events missed while the listener was away: whatever the pages show may be old.
            case ClusterEvent.Resync r -> watched.runners();
            default -> {}
        }
    }

    /** One flush: says this node watches (when due), then sends the changes merged since the last one. Tests call it directly. */
    public void tick() {
        Instant now = clock.instant();
        if (watched.hasListeners() && !now.isBefore(announced.plus(ANNOUNCE))) {
            announced = now;
            bus.publish(new ClusterEvent.Watching());
        }
        List<JobUuid> changedJobs;
        boolean changedRunners;
        synchronized (this) {
            if (jobs.isEmpty() && !runners) return;
            changedJobs = new ArrayList<>(jobs);
            changedRunners = runners;
            jobs.clear();
            runners = false;
        }
        if (changedJobs.isEmpty()) bus.publish(new ClusterEvent.Changed(true, List.of()));
        for (int from = 0; from < changedJobs.size(); from += JOBS_PER_EVENT) {
            List<JobUuid> part = changedJobs.subList(from, Math.min(changedJobs.size(), from + JOBS_PER_EVENT));
            bus.publish(new ClusterEvent.Changed(changedRunners && from == 0, part));
        }
    }

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warn("relaying console changes failed; the next flush retries: {}", e.toString());
        }
    }

    @Override
    public void close() {
        ticker.shutdownNow();
    }
}
