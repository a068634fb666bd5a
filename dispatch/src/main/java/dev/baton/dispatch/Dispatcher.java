package dev.baton.dispatch;

import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.PollTimeout;
import dev.baton.store.ClaimFilter;
import dev.baton.store.ClaimRequest;
import dev.baton.store.Job;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Matches ready runners with pending jobs, driven by events rather than a polling loop: a runner
 * saying {@code ready}, a job submitted or returned to the queue, and a job leaving flight (which
 * may lift a tier limit) each trigger {@link #pump}. A runner with nothing to do waits here until
 * one of those events or its poll timeout ({@code no_job}).
 *
 * <p>No lock is held across I/O (issue 13): a pump takes the waiters it will serve out of the
 * shared table under this object's lock (marking them busy), claims and hands out jobs without
 * it, and gives them back under it. Claims are compare-and-set in the store, so correctness never
 * depended on the lock; concurrent pumps serve disjoint waiters. A pump that finds a waiter busy
 * marks it {@code missed}, and whoever gives it back passes over it once more: the busy pump may
 * have looked for work before the job that triggered the other pump was committed, and without
 * that second look the job would wait for the next event. A poll timeout that fires while a pump
 * holds the waiter is likewise left to the pump, so that {@code no_job} never precedes a {@code job}
 * handed out in the same wait.
 *
 * <p>Before claiming, a pump asks the store whether anything is pending for the waiters' specs,
 * unless this node knows the answer ({@link PendingKnowledge}, docs/decisions/0020-pending-knowledge.md):
 * a pump for a job just committed here claims at once, and a set of specs the store said has
 * nothing pending is not asked about again until a job of it is heard of, the fallback sweep
 * forgets, or the answer is two seconds old.
 */
public final class Dispatcher {
    private final Store store;
    private final Deadlines deadlines;
    private final Clock clock;
    private final Duration acceptanceTimeout;
    private final Map<Long, Waiter> waiters = new LinkedHashMap<>();
    /** Runners that declined a job: their empty claim says nothing about other runners of the same specs. */
    private final Set<Long> runnersThatDeclined = ConcurrentHashMap.newKeySet();

    /** Registers each claimed attempt and makes the send of its job message. */
    private final JobHandoff handoff;
    /** Which waiting runner goes first (docs/scheduling.md, "Image affinity"); on unless the server setting turns it off. */
    private volatile ImageAffinity affinity = new ImageAffinity(true);

    private final Changes changes;

    /** What each ready asks for: its specs and claim filter. */
    private final ReadyScopes readyScopes;
    /** Which spec sets the store said have nothing pending, and what was heard since (ADR 0020). */
    private final PendingKnowledge pending;
    /** Told the spec of every job heard of as pending, here or elsewhere. */
    private final PendingListeners pendingListeners = new PendingListeners();

    public Dispatcher(
            Store store,
            ActiveJobs active,
            Deadlines deadlines,
            JobPullTokens pullTokens,
            BatonMetrics metrics,
            Clock clock,
            Duration acceptanceTimeout,
            Changes changes,
            RunnerSpecSets specSets) {
        this.changes = changes;
        this.readyScopes = new ReadyScopes(store, specSets);
        this.store = store;
        this.deadlines = deadlines;
        this.clock = clock;
        this.acceptanceTimeout = acceptanceTimeout;
        this.pending = new PendingKnowledge(clock);
        this.handoff = new JobHandoff(store, active, deadlines, pullTokens, metrics, acceptanceTimeout, changes);
    }

    /** What to do when a claimed job's acceptance window closes (set by the lifecycle, which sweeps the store's deadlines). */
    public interface AcceptanceTimeouts {
        void expired(ActiveJob job);
    }

    public void onAcceptanceTimeout(AcceptanceTimeouts handler) {
        handoff.onAcceptanceTimeout(handler);
    }

    /** The {@code image_affinity} setting: off, runners are served in the order they wait, as before it. */
    public void imageAffinity(boolean enabled) {
        this.affinity = new ImageAffinity(enabled);
    }

    /**
     * The runner asks for up to {@code slots} jobs, waiting at most {@code pollTimeout}. Returns
     * false for a repeated {@code ready} while the runner is already waiting (it changes nothing
     * and, per the brief, does not count as activity).
     */
    public boolean ready(RunnerSession session, PollTimeout pollTimeout, int slots) {
        return ready(session, pollTimeout, slots, null, List.of());
    }

    /**
     * A router's {@code ready}: {@code specSlugs} (null for all) narrows the wait to some of the
     * runner's specs, {@code preferProjects} orders its claims by project first. A ready that
     * changes either replaces the current wait (a router's free runners changed); one that
     * changes neither is a repeat as above.
     */
    public boolean ready(
            RunnerSession session,
            PollTimeout pollTimeout,
            int slots,
            List<String> specSlugs,
            List<ProjectUuid> preferProjects) {
        ReadyScopes.Scope scope = readyScopes.of(session.runnerId(), specSlugs, preferProjects);
        synchronized (this) {
            Waiter existing = waiters.get(session.runnerId());
            if (existing != null && existing.session == session && existing.filter.equals(scope.filter())) return false;
            waiters.put(session.runnerId(), new Waiter(session, scope.specIds(), scope.filter(), slots));
        }
        deadlines.set(
                pollKey(session.runnerId()),
                clock.instant().plusSeconds(pollTimeout.seconds()),
                () -> pollExpired(session));
        changes.runners();
        pump(null, false);
        return true;
    }

    /** The runner's channel closed or was replaced: it no longer waits. */
    public void forget(RunnerSession session) {
        synchronized (this) {
            Waiter w = waiters.get(session.runnerId());
            if (w != null && w.session == session) {
                waiters.remove(session.runnerId());
                deadlines.clear(pollKey(session.runnerId()));
                affinity.forget(session.runnerId());
            }
        }
        changes.runners();
    }

    /**
     * A job became pending on this node (submitted, declined, requeued; called after its commit):
     * offer it to waiting runners of its spec. This pump claims without asking the store first:
     * it knows a job of that spec was just committed.
     */
    public void jobPending(long specId) {
        pending.pending(specId);
        pendingListeners.tell(specId);
        pump(specId, true);
    }

    /**
     * Another node said a job of this spec became pending: offer it here too, after asking the
     * store (that node's own runners have usually claimed it already).
     */
    public void jobPendingElsewhere(long specId) {
        pending.pending(specId);
        pendingListeners.tell(specId);
        pump(specId, false);
    }

    /**
     * Adds a listener told the spec id of each job this dispatcher hears of as pending (on this
     * node or, over the cluster bus, on another), before its runners are served; it runs on the
     * caller's thread, so it must only hand the news on. Returns what removes it.
     */
    public Runnable onPending(java.util.function.LongConsumer listener) {
        return pendingListeners.add(listener);
    }

    /** A job left flight: a tier limit it held may be lifted. */
    public void jobFinished() {
        pump(null, false);
    }

    /**
     * News of pending jobs may have been lost (the fallback sweep, a resync of the cluster bus):
     * forget what this node knows and offer pending work to every waiting runner, asking the store.
     */
    public void lookAgain() {
        pending.forget();
        pump(null, false);
    }

    public void runnerDeclined(long runnerId) {
        runnersThatDeclined.add(runnerId);
    }

    /** The slots the runner still offers while it waits here for work (it said ready); 0 when it does not wait. */
    public synchronized int freeSlots(long runnerId) {
        Waiter w = waiters.get(runnerId);
        return w == null ? 0 : w.slots;
    }

    public synchronized int waiting() {
        return waiters.size();
    }

    /**
     * Offers pending work to waiting runners, oldest waiter first. A failed claim for a set of
     * specs means nothing claimable for that set right now, so later waiters with the same set are
     * skipped — except after a runner's own declines, which exclude jobs only for that runner.
     */
    private void pump(Long onlySpec, boolean justCommitted) {
        // Only the first pass knows the job is there; a second look (below) asks the store.
        serveAll(take(onlySpec, null), justCommitted ? onlySpec : null);
    }

    /** Serves the waiters taken, then those another pump skipped meanwhile, until none is left. */
    private void serveAll(List<Waiter> taken, Long known) {
        while (!taken.isEmpty()) {
            List<Runnable> sends = new ArrayList<>();
            try {
                serve(taken, sends, known);
                known = null;
            } finally {
                taken = giveBack(taken, sends);
            }
            sends.forEach(Runnable::run);
            // Waiters another pump skipped while this one held them get one more look.
            taken = take(null, taken);
        }
    }

    /**
     * Holds a free runner waiting for {@code specId}, for a claim in the submission's commit
     * (decision 0063); empty when none waits. The runner is the one a pump would serve first for
     * a queue whose head is this job ({@link #warmFirst}): one image affinity says is due, else
     * the oldest that holds {@code image}, else the oldest. A waiter's next job is taken to be the
     * new one (the queue is empty when runners wait idle); if it is not, the claim still takes the
     * claim order's head, and the choice was only a preference, as the pump's read is.
     */
    public Optional<DispatchReservation> reserve(long specId, ImageDigest image) {
        ImageAffinity affinity = this.affinity;
        Waiter oldest = null;
        Waiter warm = null;
        Waiter due = null;
        List<Long> others = new ArrayList<>();
        synchronized (this) {
            for (Waiter w : waiters.values()) {
                if (w.busy || w.slots <= 0 || !w.session.isOpen() || !w.specIds.contains(specId)) continue;
                others.add(w.session.runnerId());
                if (oldest == null) oldest = w;
                if (due == null && affinity.due(w.session.runnerId())) due = w;
                List<ImageDigest> held = w.session.heldImages();
                if (warm == null && affinity.warm(held, Optional.ofNullable(image))) warm = w;
            }
            Waiter chosen = due != null ? due : warm != null ? warm : oldest;
            if (chosen == null) return Optional.empty();
            chosen.busy = true;
            others.remove(Long.valueOf(chosen.session.runnerId()));
            Instant now = clock.instant();
            ClaimRequest request = new ClaimRequest(
                    chosen.session.runnerId(),
                    chosen.slots,
                    chosen.specIds,
                    claimFilter(chosen),
                    runnersThatDeclined.contains(chosen.session.runnerId()));
            return Optional.of(new DispatchReservation(
                    chosen,
                    request,
                    now,
                    now.plus(acceptanceTimeout),
                    due == null && chosen == warm ? others : List.of()));
        }
    }

    /**
     * The submission's commit claimed {@code claimed} for the held runner: hands them out as a
     * pump does (the same acceptance window, so a failed send returns the job to pending as any
     * failed offer), releases the runner, and serves the waiters other pumps skipped meanwhile.
     */
    public void handOut(DispatchReservation reservation, List<Job> claimed) {
        Waiter w = reservation.waiter();
        List<Runnable> sends = new ArrayList<>();
        List<Waiter> missed;
        try {
            for (Job job : claimed) {
                w.slots--;
                sends.add(handoff.hand(w.session, job, reservation.now()));
            }
            if (!claimed.isEmpty()) {
                ImageAffinity affinity = this.affinity;
                affinity.served(w.session.runnerId());
                // As a pump counts it: a job went to a warm runner ahead of these.
                for (long runner : reservation.passedOver()) affinity.passedOver(runner);
            }
        } finally {
            missed = giveBack(List.of(w), sends);
        }
        sends.forEach(Runnable::run);
        serveAll(take(null, missed), null);
    }

    /** The submission's transaction failed: the held runner waits again, as it did. */
    public void release(DispatchReservation reservation) {
        List<Runnable> sends = new ArrayList<>();
        List<Waiter> missed = giveBack(List.of(reservation.waiter()), sends);
        sends.forEach(Runnable::run);
        serveAll(take(null, missed), null);
    }

    /** Marks and returns the waiters to serve: all matching ones, or among {@code only} those another pump missed. */
    private synchronized List<Waiter> take(Long onlySpec, List<Waiter> only) {
        List<Waiter> taken = new ArrayList<>();
        if (only != null) {
            for (Waiter w : only) {
                if (!w.missed || w.busy || waiters.get(w.session.runnerId()) != w) continue;
                w.missed = false;
                w.busy = true;
                taken.add(w);
            }
            return taken;
        }
        var it = waiters.values().iterator();
        while (it.hasNext()) {
            Waiter w = it.next();
            if (!w.session.isOpen()) {
                if (!w.busy) it.remove();
                continue;
            }
            if (onlySpec != null && !w.specIds.contains(onlySpec)) continue;
            if (w.specIds.isEmpty()) continue;
            if (w.busy) {
                w.missed = true;
                continue;
            }
            w.busy = true;
            taken.add(w);
        }
        return taken;
    }

    /**
     * Claims for the waiters this pump holds, all in one write transaction (one commit however
     * many waiters it serves); no lock is held here (every call is I/O). The order of the
     * requests is the waiters' (oldest first); which jobs each one gets is the store's claim order.
     */
    private void serve(List<Waiter> taken, List<Runnable> sends, Long justPending) {
        Map<Set<Long>, Boolean> pendingFor = new HashMap<>();
        PendingKnowledge.Ticket ticket = pending.ticket(); // before any read (see PendingKnowledge)
        List<Waiter> asking = new ArrayList<>();
        for (Waiter w : taken) {
            if (w.slots <= 0 || !w.session.isOpen()) continue;
            if (pendingFor.computeIfAbsent(w.specIds, specs -> mayHavePending(specs, justPending, ticket)))
                asking.add(w);
        }
        if (asking.isEmpty()) return;
        Instant now = clock.instant();
        ImageAffinity affinity = this.affinity;
        Set<Long> warm = new HashSet<>();
        if (affinity.enabled()) asking = warmFirst(affinity, asking, warm, now);
        List<ClaimRequest> requests = new ArrayList<>(asking.size());
        for (Waiter w : asking) {
            // Declines exclude jobs for that runner only: the next waiter with the same specs may still claim.
            requests.add(new ClaimRequest(
                    w.session.runnerId(),
                    w.slots,
                    w.specIds,
                    claimFilter(w),
                    runnersThatDeclined.contains(w.session.runnerId())));
        }
        List<List<Job>> claimed = store.claims().claimEach(requests, now, now.plus(acceptanceTimeout));
        Set<Long> served = new HashSet<>();
        Set<Long> warmSpecs = new HashSet<>();
        for (int i = 0; i < asking.size(); i++) {
            Waiter w = asking.get(i);
            for (Job job : claimed.get(i)) {
                w.slots--;
                served.add(w.session.runnerId());
                if (warm.contains(w.session.runnerId())) warmSpecs.add(job.specId());
                sends.add(handoff.hand(w.session, job, now));
            }
        }
        for (Waiter w : taken) {
            long runner = w.session.runnerId();
            if (served.contains(runner)) affinity.served(runner);
            else if (w.specIds.stream().anyMatch(warmSpecs::contains)) affinity.passedOver(runner);
        }
    }

    /**
     * Whether to claim for waiters of these specs. A claim is a write transaction, wasted when
     * nothing is pending (every finished job and every {@code ready} pumps, and most find nothing),
     * so the store is asked first, unless this pump's own job was just committed for one of the
     * specs (pending), or the store already said none and nothing was heard since (not pending).
     */
    private boolean mayHavePending(Set<Long> specIds, Long justPending, PendingKnowledge.Ticket ticket) {
        if (justPending != null && specIds.contains(justPending)) return true;
        if (pending.knownEmpty(specIds)) return false;
        boolean any = store.runs().hasPendingFor(specIds);
        if (!any) pending.nothingPending(specIds, ticket);
        return any;
    }

    /**
     * Image affinity's order of the claims ({@link ImageAffinity}), all still in the one claim
     * transaction: runners passed over too often first, then each runner that holds the image of
     * the job its claim would take next (one read each; {@code warm} collects them), then the rest
     * in their waiting order.
     */
    private List<Waiter> warmFirst(ImageAffinity affinity, List<Waiter> asking, Set<Long> warm, Instant now) {
        List<Waiter> due = new ArrayList<>();
        List<Waiter> warmWaiters = new ArrayList<>();
        List<Waiter> rest = new ArrayList<>();
        for (Waiter w : asking) {
            long runner = w.session.runnerId();
            List<ImageDigest> held = w.session.heldImages();
            if (affinity.due(runner)) {
                due.add(w);
            } else if (held != null
                    && !held.isEmpty()
                    && affinity.warm(held, store.claims().nextImage(runner, now, claimFilter(w)))) {
                warm.add(runner);
                warmWaiters.add(w);
            } else {
                rest.add(w);
            }
        }
        List<Waiter> ordered = new ArrayList<>(asking.size());
        ordered.addAll(due);
        ordered.addAll(warmWaiters);
        ordered.addAll(rest);
        return ordered;
    }

    /** The waiter's claim filter with the images its runner holds, so the attempt records whether it was warm. */
    private static ClaimFilter claimFilter(Waiter w) {
        List<ImageDigest> held = w.session.heldImages();
        return held == null ? w.filter : w.filter.holding(held);
    }

    /**
     * Releases the waiters: a filled one stops waiting, one whose poll timed out meanwhile is
     * told {@code no_job} (after its jobs, if any). Returns the ones another pump missed.
     */
    private synchronized List<Waiter> giveBack(List<Waiter> taken, List<Runnable> sends) {
        List<Waiter> missed = new ArrayList<>();
        for (Waiter w : taken) {
            w.busy = false;
            boolean current = waiters.get(w.session.runnerId()) == w;
            if (w.slots == 0 || w.expired) {
                if (current) {
                    waiters.remove(w.session.runnerId());
                    if (w.slots == 0) deadlines.clear(pollKey(w.session.runnerId()));
                    else sends.add(() -> w.session.send(new ServerMessage.NoJob()));
                }
            } else if (w.missed && current) {
                missed.add(w);
            }
        }
        return missed;
    }

    private void pollExpired(RunnerSession session) {
        boolean wasWaiting;
        synchronized (this) {
            Waiter w = waiters.get(session.runnerId());
            wasWaiting = w != null && w.session == session;
            if (wasWaiting && w.busy) {
                w.expired = true; // the pump holding it ends the wait after its jobs
                return;
            }
            if (wasWaiting) waiters.remove(session.runnerId());
        }
        if (wasWaiting) session.send(new ServerMessage.NoJob());
    }

    private static String pollKey(long runnerId) {
        return DeadlineKeys.poll(runnerId);
    }
}
