package dev.baton.server.dispatch;

import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.PollTimeout;
import dev.baton.server.channel.RunnerSession;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.store.Job;
import dev.baton.server.store.Project;
import dev.baton.server.store.Spec;
import dev.baton.server.store.Store;
import dev.baton.server.token.PullTokens;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches ready runners with pending jobs, driven by events rather than a polling loop: a runner
 * saying {@code ready}, a job submitted or returned to the queue, and a job leaving flight (which
 * may lift a tier limit) each trigger {@link #pump}. A runner with nothing to do waits here until
 * one of those events or its poll timeout ({@code no_job}).
 *
 * <p>Matching is serialized by this object's lock: claims are compare-and-set in the store, so
 * correctness does not depend on it, but one pump at a time keeps a burst of events from sending
 * every waiting runner to the database at once.
 */
public final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    /** A runner waiting for work: how many more jobs it takes and which specs it serves. */
    private static final class Waiter {
        final RunnerSession session;
        final Set<Long> specIds;
        int slots;

        Waiter(RunnerSession session, Set<Long> specIds, int slots) {
            this.session = session;
            this.specIds = specIds;
            this.slots = slots;
        }
    }

    private final Store store;
    private final ActiveJobs active;
    private final Deadlines deadlines;
    private final PullTokens pullTokens;
    private final BatonMetrics metrics;
    private final Clock clock;
    private final Duration acceptanceTimeout;
    private final Map<Long, Waiter> waiters = new LinkedHashMap<>();
    /** Runners that declined a job: their empty claim says nothing about other runners of the same specs. */
    private final Set<Long> runnersThatDeclined = ConcurrentHashMap.newKeySet();
    private AcceptanceTimeouts acceptanceTimeouts = job -> {};

    public Dispatcher(Store store, ActiveJobs active, Deadlines deadlines, PullTokens pullTokens, BatonMetrics metrics,
            Clock clock, Duration acceptanceTimeout) {
        this.store = store;
        this.active = active;
        this.deadlines = deadlines;
        this.pullTokens = pullTokens;
        this.metrics = metrics;
        this.clock = clock;
        this.acceptanceTimeout = acceptanceTimeout;
    }

    /** What to do when a claimed job's acceptance window closes (set by the lifecycle, which owns requeues). */
    public interface AcceptanceTimeouts {
        void expired(ActiveJob job);
    }

    public void onAcceptanceTimeout(AcceptanceTimeouts handler) {
        this.acceptanceTimeouts = handler;
    }

    /**
     * The runner asks for up to {@code slots} jobs, waiting at most {@code pollTimeout}. Returns
     * false for a repeated {@code ready} while the runner is already waiting (it changes nothing
     * and, per the brief, does not count as activity).
     */
    public boolean ready(RunnerSession session, PollTimeout pollTimeout, int slots) {
        Set<Long> specIds = new HashSet<>();
        for (Spec spec : store.runnerSpecs(session.runnerId())) {
            if (spec.archived() == null) specIds.add(spec.id());
        }
        synchronized (this) {
            Waiter existing = waiters.get(session.runnerId());
            if (existing != null && existing.session == session) return false;
            waiters.put(session.runnerId(), new Waiter(session, specIds, slots));
        }
        deadlines.set(pollKey(session.runnerId()), clock.instant().plusSeconds(pollTimeout.seconds()), () -> pollExpired(session));
        pump(null);
        return true;
    }

    /** The runner's channel closed or was replaced: it no longer waits. */
    public synchronized void forget(RunnerSession session) {
        Waiter w = waiters.get(session.runnerId());
        if (w != null && w.session == session) {
            waiters.remove(session.runnerId());
            deadlines.clear(pollKey(session.runnerId()));
        }
    }

    /** A job became pending (submitted, declined, requeued): offer it to waiting runners of its spec. */
    public void jobPending(long specId) {
        pump(specId);
    }

    /** A job left flight: a tier limit it held may be lifted. */
    public void jobFinished() {
        pump(null);
    }

    public void runnerDeclined(long runnerId) {
        runnersThatDeclined.add(runnerId);
    }

    public synchronized int waiting() {
        return waiters.size();
    }

    /**
     * Offers pending work to waiting runners, oldest waiter first. A failed claim for a set of
     * specs means nothing claimable for that set right now, so later waiters with the same set are
     * skipped — except after a runner's own declines, which exclude jobs only for that runner.
     */
    private void pump(Long onlySpec) {
        List<Runnable> sends = new ArrayList<>();
        synchronized (this) {
            Set<Set<Long>> exhausted = new HashSet<>();
            var it = waiters.values().iterator();
            while (it.hasNext()) {
                Waiter w = it.next();
                if (!w.session.isOpen()) {
                    it.remove();
                    continue;
                }
                if (onlySpec != null && !w.specIds.contains(onlySpec)) continue;
                if (w.specIds.isEmpty() || exhausted.contains(w.specIds)) continue;
                // A read first: a claim is a write transaction, wasted when nothing is pending
                // (every finished job pumps, and most find nothing to hand out).
                if (!store.hasPendingFor(w.specIds)) {
                    exhausted.add(w.specIds);
                    continue;
                }
                while (w.slots > 0) {
                    Instant now = clock.instant();
                    var claimed = store.claim(w.session.runnerId(), LeaseId.random(), now);
                    if (claimed.isEmpty()) {
                        if (!runnersThatDeclined.contains(w.session.runnerId())) exhausted.add(w.specIds);
                        break;
                    }
                    w.slots--;
                    Job job = claimed.get();
                    sends.add(hand(w.session, job, now));
                }
                if (w.slots == 0) {
                    it.remove();
                    deadlines.clear(pollKey(w.session.runnerId()));
                }
            }
        }
        sends.forEach(Runnable::run);
    }

    /** Registers the attempt and its acceptance window, and returns the send of its {@code job} message. */
    private Runnable hand(RunnerSession session, Job job, Instant now) {
        Spec spec = store.findSpec(job.specId()).orElseThrow();
        Project project = store.findProject(job.projectId()).orElseThrow();
        ActiveJob attempt = new ActiveJob(job.uuid(), job.lease(), session.runnerId(), job.timeout(), null, now, 0);
        active.put(attempt);
        deadlines.set(DeadlineKeys.accept(job.uuid()), now.plus(acceptanceTimeout), () -> acceptanceTimeouts.expired(attempt));
        metrics.claimed();
        String token = pullTokens.issue(session.runner().uuid(), project.uuid(), now);
        ClaimedJob claimed = new ClaimedJob(job.uuid(), job.lease(), job.attempt(), spec.view(), job.config(), token, job.timeout(), job.created());
        LOG.info("job {} attempt {} claimed by runner {}", job.uuid(), job.attempt(), session.runner().slug());
        return () -> session.send(new ServerMessage.Job(claimed));
    }

    private void pollExpired(RunnerSession session) {
        boolean wasWaiting;
        synchronized (this) {
            Waiter w = waiters.get(session.runnerId());
            wasWaiting = w != null && w.session == session;
            if (wasWaiting) waiters.remove(session.runnerId());
        }
        if (wasWaiting) session.send(new ServerMessage.NoJob());
    }

    private static String pollKey(long runnerId) {
        return DeadlineKeys.poll(runnerId);
    }
}
