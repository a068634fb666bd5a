package dev.baton.dispatch;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.model.CapabilityLabels;
import dev.baton.store.Attempt;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.PendingFacts;
import dev.baton.store.Pool;
import dev.baton.store.ServingRunner;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Says why a pending job waits, where it stands and when it may start, from the store's queue
 * facts and what this node knows about connected runners. Reads only; the answer is a snapshot.
 *
 * <p>A runner counts as connected when it has a channel to this node or its last heartbeat (as
 * flushed to the database by any node) is within the heartbeat timeout, so that behind a load
 * balancer a runner connected elsewhere is not reported offline.
 */
public final class PendingExplainer implements JobQueue {
    /** How many of the spec's latest finished jobs the predicted start averages. */
    static final int RECENT_RUNS = 20;

    private final Store store;
    private final Sessions sessions;
    private final Clock clock;
    private final Duration heartbeatTimeout;

    public PendingExplainer(Store store, Sessions sessions, Clock clock, Duration heartbeatTimeout) {
        this.store = store;
        this.sessions = sessions;
        this.clock = clock;
        this.heartbeatTimeout = heartbeatTimeout;
    }

    @Override
    public Optional<QueueStatus> status(Job job) {
        return status(job, null, null);
    }

    @Override
    public Optional<QueueStatus> status(Job job, Spec knownSpec, JobLabels knownLabels) {
        if (job.status() != JobStatus.PENDING) return Optional.empty();
        Instant now = clock.instant();
        Spec spec = knownSpec != null && knownSpec.id() == job.specId()
                ? knownSpec
                : store.specs().findSpec(job.specId()).orElse(null);
        JobLabels wanted = knownLabels != null ? knownLabels : store.runs().jobLabels(job.id());
        // Runners that heartbeated within the timeout and are not quarantined are connected
        // whoever they are, so the store only counts them, unless the answer needs them one by
        // one: to match required labels, or to tell who declined (only a job claimed before,
        // attempt > 0, has declines). A submission is neither and reads no runner rows while its
        // runners are all live.
        // A spec with a noise limit needs them one by one too: which connected runner is quiet enough.
        boolean byRunner =
                !wanted.required().isEmpty() || job.attempt() > 0 || (spec != null && spec.maxNoiseCv() != null);
        PendingFacts all = store.runs().pendingFacts(job, RECENT_RUNS, byRunner ? null : now.minus(heartbeatTimeout));
        // Only runners with every label the job requires may take it (docs/scheduling.md, "Label routing").
        PendingFacts facts = wanted.required().isEmpty()
                ? all
                : new PendingFacts(
                        all.servingRunners().stream()
                                .filter(r -> wanted.satisfiedBy(
                                        store.runners().runnerLabels(r.id()).effective()))
                                .toList(),
                        0,
                        all.ahead(),
                        all.inFlightOnServingRunners(),
                        all.tierLimited(),
                        all.recentRuns(),
                        all.recentRunMicros(),
                        all.pooled());
        if (all.serving() > 0
                && facts.serving() == 0
                && (spec == null || spec.archived() == null)
                && pools(job, wanted, all).isEmpty()) {
            String specName = spec == null ? "its spec" : "spec '" + spec.slug() + "'";
            String labels = wanted.required().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining(", "));
            PendingReason reason = PendingReason.of(
                    PendingReason.Code.LABELS_UNMATCHED,
                    "no runner of " + specName + " has the labels it requires (" + labels + "); "
                            + (wanted.required().containsKey(CapabilityLabels.BASELINE_IMAGE)
                                    ? "a paired job's baseline image runs on runc and microvm runners only, which report "
                                            + CapabilityLabels.BASELINE_IMAGE + "=true themselves: start one for "
                                            + specName
                                    : "label a runner (baton runners label) or change require_labels"));
            return Optional.of(new QueueStatus(reason, all.ahead() + 1, null));
        }
        // A quarantined runner takes no jobs, connected or not (docs/scheduling.md). The counted
        // runners are connected and not quarantined by what the store counted.
        List<ServingRunner> connected = new ArrayList<>();
        for (ServingRunner r : facts.servingRunners()) {
            if (!r.quarantined() && isConnected(r, now)) connected.add(r);
        }
        int connectedCount = connected.size() + facts.freshServing();
        PendingReason reason = reason(job, spec, wanted, facts, connected, connectedCount, now);
        return Optional.of(
                new QueueStatus(reason, facts.ahead() + 1, predictedStart(job, reason, facts, connectedCount, now)));
    }

    /**
     * {@code connected} lists the connected runners among those the facts list; {@code connectedCount}
     * adds the ones the facts only count, which are never asked about declines: they are counted
     * only for a job never claimed (no attempts, so no declines).
     */
    private PendingReason reason(
            Job job,
            Spec spec,
            JobLabels wanted,
            PendingFacts facts,
            List<ServingRunner> connected,
            int connectedCount,
            Instant now) {
        String specName = spec == null ? "its spec" : "spec '" + spec.slug() + "'";
        if (spec != null && spec.archived() != null) {
            return PendingReason.of(
                    PendingReason.Code.SPEC_ARCHIVED,
                    specName + " is archived: no runner takes its jobs; cancel the job or restore the spec");
        }
        List<Attempt> declinedAttempts = job.attempt() == 0
                ? List.of()
                : store.runs().attempts(job.id()).stream()
                        .filter(a -> a.outcome() == AttemptOutcome.DECLINED)
                        .toList();
        if (job.notBefore() != null && job.notBefore().isAfter(now)) {
            return new PendingReason(
                    PendingReason.Code.RETRY_BACKOFF.wireName(),
                    "its last attempt failed and it opted in to a retry;" + " it may start again from "
                            + job.notBefore(),
                    null,
                    null,
                    job.notBefore());
        }
        // A pool that starts machines for the job (issue 43): its back-off, or its machines to come.
        List<Pool> pools =
                job.notBefore() == null || !job.notBefore().isAfter(now) ? pools(job, wanted, facts) : List.of();
        for (Pool pool : pools) {
            if (pool.backoffUntil() != null && pool.backoffUntil().isAfter(now)) {
                return new PendingReason(
                        PendingReason.Code.POOL_BACKOFF.wireName(),
                        "pool '" + pool.slug() + "' cannot start machines: "
                                + (pool.reason() == null ? "its provider failed" : pool.reason()),
                        null,
                        null,
                        pool.backoffUntil());
            }
        }
        if (!pools.isEmpty() && (facts.serving() == 0 || connectedCount == 0)) {
            return PendingReason.of(
                    PendingReason.Code.POOL_STARTING,
                    "no runner of " + specName + " is connected; pool '"
                            + pools.getFirst().slug()
                            + "' starts a machine for each job that waits (at most "
                            + pools.getFirst().settings().max() + ")");
        }
        if (facts.serving() == 0) {
            return PendingReason.of(
                    PendingReason.Code.NO_RUNNER, "no runner serves " + specName + "; add the spec to a runner");
        }
        if (facts.freshServing() == 0 && facts.servingRunners().stream().allMatch(ServingRunner::quarantined)) {
            String who =
                    facts.servingRunners().stream().map(r -> r.slug().value()).collect(Collectors.joining(", "));
            return PendingReason.of(
                    PendingReason.Code.RUNNERS_QUARANTINED,
                    "every runner of " + specName + " is quarantined for" + " infrastructure failures (" + who
                            + "); an admin releases one with baton runners release");
        }
        // The declines of the current round (as the claim query counts them, JdbcStore.DECLINED_THIS_ROUND).
        Instant backoff = job.declineBackoffUntil();
        boolean resting = backoff != null && backoff.isAfter(now);
        Instant round = backoff == null || resting ? Instant.EPOCH : backoff;
        List<PendingReason.RunnerDecline> thisRound = lastDeclines(declinedAttempts, round);
        Set<Long> declinedBy = declinedAttempts.stream()
                .filter(a -> !a.ended().isBefore(round))
                .map(Attempt::runnerId)
                .collect(Collectors.toSet());
        long willing =
                connected.stream().filter(r -> !declinedBy.contains(r.id())).count()
                        + (connectedCount - connected.size());
        if (resting && willing == 0) {
            return new PendingReason(
                    PendingReason.Code.RETRY_BACKOFF.wireName(),
                    "every runner of " + specName
                            + " declined it (a decline may be transient); they may try again from " + backoff,
                    null,
                    thisRound,
                    backoff);
        }
        if (!thisRound.isEmpty() && willing == 0) {
            return new PendingReason(
                    PendingReason.Code.DECLINED.wireName(),
                    declinedMessage(thisRound, facts, declinedBy, specName),
                    null,
                    thisRound,
                    null);
        }
        if (connectedCount == 0) {
            int n = facts.serving();
            return PendingReason.of(
                    PendingReason.Code.RUNNERS_OFFLINE,
                    n + (n == 1 ? " runner serves " : " runners serve ") + specName + " but none is connected");
        }
        PendingReason loud = noQuietRunner(spec, specName, connected);
        if (loud != null) return loud;
        if (facts.tierLimited()) {
            String scope = job.priority() >= 100 ? "its organization" : "its source address";
            return PendingReason.of(
                    PendingReason.Code.ORG_LIMIT,
                    "the plan of its organization allows one job in flight at a time for " + scope
                            + ", and one is in flight");
        }
        return new PendingReason(
                PendingReason.Code.RUNNERS_BUSY.wireName(),
                "all " + connectedCount + " connected runner"
                        + (connectedCount == 1 ? "" : "s") + " of " + specName + " are busy; " + facts.ahead()
                        + (facts.ahead() == 1 ? " job is" : " jobs are") + " ahead of it",
                facts.ahead(),
                null,
                null);
    }

    /**
     * The spec's {@code max_noise_cv} and no connected runner meets it (decision 0052): a runner
     * claims its jobs only when its latest calibration's largest CV is at most the limit, so the job
     * waits for one that is quiet enough, or for a limit raised, or for a runner measured again.
     * Null when the spec has no limit or a connected runner meets it. Every connected runner is
     * listed here (the explainer reads them one by one for such a spec).
     */
    private PendingReason noQuietRunner(Spec spec, String specName, List<ServingRunner> connected) {
        if (spec == null || spec.maxNoiseCv() == null || connected.isEmpty()) return null;
        List<String> loud = new ArrayList<>();
        for (ServingRunner r : connected) {
            var latest = store.noise().noiseHistory(r.id(), 1);
            Double cv = latest.isEmpty() ? null : latest.get(0).maxCv();
            if (spec.quietEnough(cv)) return null;
            loud.add(r.slug().value() + " "
                    + (cv == null ? "has no calibration" : String.format(java.util.Locale.ROOT, "%.4f", cv)));
        }
        return PendingReason.of(
                PendingReason.Code.NO_QUIET_RUNNER,
                "no connected runner of " + specName + " is quiet enough: its max_noise_cv is "
                        + String.format(java.util.Locale.ROOT, "%.4f", spec.maxNoiseCv()) + " and the largest CV of "
                        + String.join(", ", loud)
                        + "; measure again (baton runners noise RUNNER), connect a quieter runner or raise the limit");
    }

    private static String declinedMessage(
            List<PendingReason.RunnerDecline> declines, PendingFacts facts, Set<Long> declinedBy, String specName) {
        String who = declines.stream()
                .map(d -> d.runner() + " (" + d.code() + (d.reason() == null ? "" : ": " + d.reason()) + ")")
                .collect(Collectors.joining("; "));
        long others = facts.servingRunners().stream()
                        .filter(r -> !declinedBy.contains(r.id()))
                        .count()
                + facts.freshServing();
        return "declined by " + who
                + (others == 0
                        ? ""
                        : "; the other " + (others == 1 ? "runner" : others + " runners") + " of " + specName
                                + (others == 1 ? " is" : " are") + " not connected");
    }

    /** Each runner's latest decline that ended at or after {@code since}, oldest runner first. */
    private List<PendingReason.RunnerDecline> lastDeclines(List<Attempt> declined, Instant since) {
        Map<Long, Attempt> latest = new LinkedHashMap<>();
        for (Attempt a : declined) {
            if (a.ended() != null && !a.ended().isBefore(since)) latest.put(a.runnerId(), a);
        }
        Map<Long, String> slugs = new HashMap<>();
        List<PendingReason.RunnerDecline> out = new ArrayList<>();
        for (Attempt a : latest.values()) {
            String slug = slugs.computeIfAbsent(
                    a.runnerId(),
                    id -> store.runners()
                            .findRunner(id)
                            .map(r -> r.slug().value())
                            .orElse(String.valueOf(id)));
            out.add(new PendingReason.RunnerDecline(
                    slug, a.declineCode() == null ? "other" : a.declineCode(), a.declineReason()));
        }
        return out;
    }

    /**
     * The estimate of docs/api.md: with {@code D} the mean run time of the spec's latest finished
     * jobs and {@code R} the connected runners serving it, the job starts after
     * {@code floor((ahead + in_flight) / R)} rounds of {@code D}; never before a back-off ends.
     * Unknown (null) without history, without a connected runner, or when the job cannot start as
     * things stand (no runner, declined, spec archived).
     */
    static Instant predictedStart(
            Job job, PendingReason reason, PendingFacts facts, int connectedRunners, Instant now) {
        if (facts.recentRuns() == 0 || connectedRunners == 0) return null;
        String code = reason.code();
        if (code.equals(PendingReason.Code.SPEC_ARCHIVED.wireName())
                || code.equals(PendingReason.Code.NO_RUNNER.wireName())
                || code.equals(PendingReason.Code.NO_QUIET_RUNNER.wireName())
                || code.equals(PendingReason.Code.DECLINED.wireName())) {
            return null;
        }
        // As LongStream.average over the run times in microseconds (the sum divided as a double), which it was.
        long meanMicros = (long) ((double) facts.recentRunMicros() / facts.recentRuns());
        long rounds = (facts.ahead() + (long) facts.inFlightOnServingRunners()) / connectedRunners;
        Instant start = now.plus(Duration.ofNanos(meanMicros * 1000).multipliedBy(rounds));
        if (job.notBefore() != null && job.notBefore().isAfter(start)) start = job.notBefore();
        if (reason.until() != null && reason.until().isAfter(start)) start = reason.until();
        return start;
    }

    /** The pools whose machines could take the job: of its spec, with every label it requires; none read when no pool serves the spec. */
    private List<Pool> pools(Job job, JobLabels wanted, PendingFacts facts) {
        if (!facts.pooled()) return List.of();
        return store.pools().listPools().stream()
                .filter(p -> p.settings().specId() == job.specId()
                        && wanted.satisfiedBy(p.settings().labels()))
                .toList();
    }

    private boolean isConnected(ServingRunner r, Instant now) {
        if (sessions.of(r.id()).isPresent()) return true;
        return r.lastHeartbeat() != null
                && !r.lastHeartbeat().plus(heartbeatTimeout).isBefore(now);
    }

    /** How many pending jobs wait for each reason code right now (every code present, zero included). */
    public Map<String, Integer> pendingByReason() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (PendingReason.Code c : PendingReason.Code.values()) counts.put(c.wireName(), 0);
        for (Job job : store.runs().pendingJobs()) {
            status(job).ifPresent(s -> counts.merge(s.reason().code(), 1, Integer::sum));
        }
        return counts;
    }
}
