package dev.baton.dispatch.channel;

import dev.baton.core.adapter.Adapters;
import dev.baton.core.config.ServerConfig;
import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.ActiveJob;
import dev.baton.dispatch.ActiveJobs;
import dev.baton.dispatch.Deadlines;
import dev.baton.dispatch.DispatchReservation;
import dev.baton.dispatch.Dispatcher;
import dev.baton.dispatch.JobEvents;
import dev.baton.dispatch.JobLifecycle;
import dev.baton.dispatch.JobPullTokens;
import dev.baton.dispatch.JobQueue;
import dev.baton.dispatch.LifecycleSettings;
import dev.baton.dispatch.Liveness;
import dev.baton.dispatch.PendingExplainer;
import dev.baton.dispatch.QueueStatus;
import dev.baton.dispatch.RunnerSpecSets;
import dev.baton.dispatch.Sessions;
import dev.baton.dispatch.cluster.ClusterBus;
import dev.baton.dispatch.cluster.ClusterChanges;
import dev.baton.dispatch.cluster.ClusterEvent;
import dev.baton.dispatch.logs.LiveLogs;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.dispatch.output.ResultProcessor;
import dev.baton.protocol.value.PollTimeout;
import dev.baton.store.ClaimedRun;
import dev.baton.store.CreatedRun;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.NewJob;
import dev.baton.store.NewReport;
import dev.baton.store.Runs;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import dev.baton.store.token.PullTokens;
import dev.baton.web.http.BeforeHttpStop;
import dev.baton.web.http.RouteModule;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner side of the server, wired in one place: sessions, dispatch, the job lifecycle and
 * its deadlines, liveness batching and result processing. BatonServer adds {@link #routes()} and
 * {@link #controlRoutes} to Javalin, and the management API tells it about submitted and canceled
 * jobs through {@link JobEvents}.
 */
public final class RunnerChannel implements JobEvents, JobQueue, BeforeHttpStop, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunnerChannel.class);
    /** How long a shutdown waits for the runners' close frames to be written. */
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(5);

    private final Store store;
    private final Sessions sessions = new Sessions();
    private final ActiveJobs active = new ActiveJobs();
    private final Liveness liveness = new Liveness();
    private final Deadlines deadlines;
    private final Dispatcher dispatcher;
    private final JobLifecycle lifecycle;
    private final ResultProcessor results;
    private final PendingExplainer explainer;
    private final ReadTimer readTimer;
    private final ChannelRoutes routes;
    private final ServerConfig config;
    private final OutputStore outputs;
    // Each entry carries when its chunk arrived, on the server's clock (assigned in the constructor, read later).
    private final LiveLogs logs = new LiveLogs(job -> active.get(job).isPresent(), this::now);
    private final Changes changes = new Changes();
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-heartbeat-flush").daemon().factory());
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-deadline-sweep").daemon().factory());
    /** How often every node sweeps the store's deadlines and offers pending work to its waiting runners, whatever it heard. */
    private static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);

    private final ClusterBus bus;
    private final Clock clock;
    private final ClusterGauges clusterGauges;
    private final ClusterChanges clusterChanges;
    private final RunnerSpecSets specSets;
    /** Fleet upgrades (issue 41): this node drives the running roll while it holds its lease. */
    private final FleetRolls rolls;
    /** Asks idle runners to measure their noise again, when noise_calibration_interval is set (decision 0062). */
    private final NoiseSchedule noiseSchedule;
    /** Stops this node's listening to its store's spec changes. */
    private final Runnable specsListener;
    /** What the other nodes tell this one over the bus. */
    private final ClusterEventHandler fromOtherNodes;

    private java.time.Instant now() {
        return clock.instant();
    }

    public RunnerChannel(
            Store store,
            ServerConfig config,
            Clock clock,
            PullTokens pullTokens,
            OutputStore outputs,
            BatonMetrics metrics) {
        this(
                store,
                config,
                clock,
                pullTokens,
                outputs,
                metrics,
                ClusterBus.open(config.databaseUrl(), config.dataDir(), config.nodeId()));
    }

    /** With this node's {@code bus} to the others (LISTEN/NOTIFY on PostgreSQL, {@link ClusterBus#LOCAL} on SQLite). */
    public RunnerChannel(
            Store store,
            ServerConfig config,
            Clock clock,
            PullTokens pullTokens,
            OutputStore outputs,
            BatonMetrics metrics,
            ClusterBus bus) {
        this.store = store;
        this.config = config;
        this.outputs = outputs;
        this.bus = bus;
        this.clock = clock;
        this.clusterChanges = new ClusterChanges(changes, bus, clock);
        this.deadlines = new Deadlines(clock);
        this.specSets = new RunnerSpecSets(store, clock);
        // A change through this node's store drops this node's sets now and the others' over the bus.
        this.specsListener = store.specs().onSpecsChange(() -> {
            specSets.invalidate();
            bus.publish(new ClusterEvent.SpecsChanged());
        });
        // One token per claim and per refresh, limited to the job (issue 41).
        JobPullTokens jobTokens = new JobPullTokens(pullTokens, config.jobTimeoutGrace());
        this.dispatcher = new Dispatcher(
                store, active, deadlines, jobTokens, metrics, clock, config.acceptanceTimeout(), changes, specSets);
        dispatcher.imageAffinity(config.imageAffinity());
        this.results = new ResultProcessor(store, outputs, new Adapters(), metrics, clock, changes);
        this.explainer = new PendingExplainer(store, sessions, clock, config.heartbeatTimeout());
        this.lifecycle = JobLifecycle.wire(
                store,
                active,
                deadlines,
                dispatcher,
                sessions,
                liveness,
                results,
                metrics,
                clock,
                LifecycleSettings.of(config),
                logs,
                explainer,
                bus,
                changes);
        this.readTimer = new ReadTimer(sessions, lifecycle.presence(), deadlines, clock, config.heartbeatTimeout());
        this.fromOtherNodes = new ClusterEventHandler(store, sessions, dispatcher, lifecycle, clusterChanges, specSets);
        this.routes = new ChannelRoutes(
                store,
                sessions,
                dispatcher,
                lifecycle,
                liveness,
                clock,
                config.requestBodyMaxBytes(),
                PollTimeout.of((int) config.defaultPollTimeout().toSeconds()),
                config.heartbeatTimeout(),
                specSets,
                new ConnectLimiter(
                        config.edge().runnerConnectsPerMinute(), config.edge().runnerConnectBurst(), clock),
                metrics,
                jobTokens);
        metrics.gauge("baton.runners.connected", "Runners with an open channel", sessions::size);
        metrics.gauge("baton.runners.waiting", "Runners waiting for a job", dispatcher::waiting);
        metrics.gauge("baton.jobs.in_flight", "Claimed or running attempts", active::size);
        metrics.runnerInfo(() -> RunnerInfo.rows(sessions.all()));
        // A dead node's roll is taken over once its lease (one node timeout) ran out.
        this.rolls = new FleetRolls(
                store,
                new RunnerDirectives(store, sessions, bus, config.nodeId(), clock, config.nodeTimeout()),
                config.nodeId(),
                clock,
                config.nodeTimeout());
        RunnerDirectives noiseDirectives =
                new RunnerDirectives(store, sessions, bus, config.nodeId(), clock, config.nodeTimeout());
        this.noiseSchedule = new NoiseSchedule(
                store,
                config.nodeId(),
                clock,
                config.noiseCalibrationInterval(),
                config.nodeTimeout(),
                runner -> noiseDirectives.deliver(runner, new dev.baton.protocol.message.ServerMessage.Calibrate()));
        this.clusterGauges = new ClusterGauges(store, config.nodeId(), config.nodeTimeout(), clock);
        clusterGauges.register(metrics);
        metrics.pendingByReason(
                java.util.Arrays.stream(dev.baton.dispatch.PendingReason.Code.values())
                        .map(dev.baton.dispatch.PendingReason.Code::wireName)
                        .toList(),
                explainer::pendingByReason);
    }

    /** What watchers (the console) hear: the changes dispatch sees, on this node and (relayed over the bus) on the others. */
    public Changes changes() {
        return clusterChanges.watched();
    }

    /** The job lifecycle, which the NATS transport's HTTPS messages go through too (docs/protocol.md, "Transport A"). */
    public JobLifecycle lifecycle() {
        return lifecycle;
    }

    /** Hears the report id of each job this node marks processed (docs/alerts.md: judging). */
    public void onReportProcessed(java.util.function.LongConsumer listener) {
        results.onProcessed(listener);
    }

    /**
     * Tells {@code listener} the spec of every job that becomes pending (submitted, requeued,
     * retried, declined back; on this node or, over the cluster bus, on another): the NATS transport's
     * pump offers it at once instead of at its next round. Returns what removes the listener.
     */
    public Runnable onJobPending(java.util.function.LongConsumer listener) {
        return dispatcher.onPending(listener);
    }

    /** The runner's open channel and what it does now, empty when it is not connected to this node. */
    public Optional<RunnerActivity> activity(long runnerId) {
        return sessions.of(runnerId)
                .map(s -> new RunnerActivity(
                        s.connected(),
                        s.drainState(),
                        active.ofRunner(runnerId).stream().map(ActiveJob::job).toList(),
                        dispatcher.freeSlots(runnerId)));
    }

    public RouteModule routes() {
        return routes;
    }

    /** Admin routes that talk to connected runners: drain, update, and per-organization usage. */
    public RouteModule controlRoutes() {
        return new RunnerControlRoutes(store, sessions, bus, config.nodeId(), clock, config.nodeTimeout());
    }

    /** Fleet upgrades: {@code /v0/rolls} (issue 41). */
    public RouteModule rollRoutes() {
        return new RollRoutes(store, rolls);
    }

    /** The noise calibration schedule, for a test to run a pass on its clock. */
    public NoiseSchedule noiseSchedule() {
        return noiseSchedule;
    }

    /** The roll driver, for a test to tick on its clock. */
    public FleetRolls rolls() {
        return rolls;
    }

    /** The live tails of the jobs whose runners this node holds (the log routes read them). */
    public LiveLogs liveLogs() {
        return logs;
    }

    /** True when nodes share a bus: a job's live log may then be on another node. */
    public boolean clustered() {
        return bus != ClusterBus.LOCAL;
    }

    @Override
    public void jobSubmitted(Job job) {
        changes.job(job.uuid());
        lifecycle.deadlineSweep().queued(job);
        dispatcher.jobPending(job.specId());
        bus.publish(new ClusterEvent.Pending(job.specId()));
    }

    /**
     * Dispatch in one commit (decision 0063): when a runner of the job's spec waits on this node,
     * the job's insert and its claim for that runner are one transaction, and the job is handed
     * out after {@code afterCommit} exactly as a pump hands out a claim (a failed send leaves it to
     * the acceptance deadline, which returns it to pending). When none waits, or the claim did not
     * take the new job, it is committed pending and pumped as before.
     */
    @Override
    public CreatedRun submit(
            Runs runs,
            NewReport report,
            NewJob job,
            long organizationId,
            Instant now,
            Consumer<CreatedRun> afterCommit) {
        Optional<DispatchReservation> held =
                dispatcher.reserve(job.specId(), job.config().digest());
        if (held.isEmpty()) return JobEvents.super.submit(runs, report, job, organizationId, now, afterCommit);
        DispatchReservation reservation = held.get();
        ClaimedRun run;
        try {
            run = runs.createRunAndClaim(
                    report, job, organizationId, now, reservation.request(), reservation.acceptUntil());
        } catch (RuntimeException | Error e) {
            dispatcher.release(reservation);
            throw e;
        }
        CreatedRun created = run.created();
        try {
            afterCommit.accept(created);
        } finally {
            try {
                dispatcher.handOut(reservation, run.claimed());
                if (run.claimedItsJob()) changes.job(created.job().uuid());
                else jobSubmitted(created.job());
            } catch (RuntimeException e) {
                // Committed: a claimed job's acceptance deadline, a pending one the next ready, finds it.
                LOG.warn("dispatch was not told about job {}", created.job().uuid(), e);
            }
        }
        return created;
    }

    @Override
    public Instant cancelDeadline(Instant now) {
        return now.plus(config.cancelDeadline());
    }

    @Override
    public Optional<QueueStatus> status(Job job) {
        return explainer.status(job);
    }

    @Override
    public Optional<QueueStatus> status(Job job, Spec spec, JobLabels labels) {
        return explainer.status(job, spec, labels);
    }

    @Override
    public void jobCanceled(Job before, Job after) {
        changes.job(before.uuid());
        lifecycle.cancels().userCanceled(before);
        // A follower of a job canceled before it ran ends now; a running one ends with its attempt.
        if (!before.status().inFlight()) logs.attemptEnded(before.uuid());
    }

    public Sessions sessions() {
        return sessions;
    }

    /**
     * Fires this node's due timers, then sweeps the store's deadlines: tests advance their clock
     * and call this instead of waiting. Returns how many timers fired plus how many jobs the sweep acted on.
     */
    public int runDueDeadlines() {
        return deadlines.runDue() + sweepDeadlines();
    }

    /** Detaches the runners the store records on this node that have no channel here (part of the fallback sweep). */
    public int detachStrayRunners() {
        return lifecycle.presence().detachStrayRunners();
    }

    /** Sweeps the store's due deadlines now; returns how many jobs this node acted on. */
    public int sweepDeadlines() {
        return lifecycle.deadlineSweep().sweep();
    }

    /** Writes batched heartbeats and this node's own now (also done every heartbeat_flush_interval). */
    public void flushHeartbeats() {
        if (!liveness.flush(store, config.nodeId(), clock.instant()))
            lifecycle.presence().rejoin();
    }

    /**
     * Registers this node and processes what a restart left unprocessed, then starts the deadline
     * loop, the read timer, heartbeat flushing, the cluster listener and the fallback sweep.
     */
    public void start() {
        lifecycle.presence().recover();
        bus.start(fromOtherNodes);
        clusterChanges.start();
        readTimer.start();
        deadlines.start();
        long every = Math.max(10, config.heartbeatFlushInterval().toMillis());
        flusher.scheduleWithFixedDelay(this::flushQuietly, every, every, TimeUnit.MILLISECONDS);
        // The fallback: a lost notification or a back-off that ended on another node delays work by this much at most.
        long sweep = SWEEP_INTERVAL.toMillis();
        sweeper.scheduleWithFixedDelay(this::fallbackSweep, sweep, sweep, TimeUnit.MILLISECONDS);
        rolls.start();
        noiseSchedule.start();
    }

    private void fallbackSweep() {
        lifecycle.deadlineSweep().sweepQuietly();
        try {
            if (++fallbackSweeps % STRAY_CHECK_EVERY == 0) lifecycle.presence().detachStrayRunners();
            dispatcher.lookAgain(); // asks the store: what no notification told is found here
        } catch (RuntimeException e) {
            LOG.warn("fallback dispatch failed; the next one retries: {}", e.toString());
        }
    }

    /** Every this many fallback sweeps, runners recorded here without a channel here are detached. */
    private static final int STRAY_CHECK_EVERY = 10;

    private int fallbackSweeps;

    /** This node's id among the nodes sharing the database. */
    public String nodeId() {
        return config.nodeId();
    }

    private void flushQuietly() {
        try {
            flushHeartbeats();
        } catch (RuntimeException e) {
            LOG.warn("heartbeat flush failed; will retry: {}", e.toString());
        }
    }

    /**
     * Graceful shutdown, while HTTP still runs: every channel is closed with 4003 and its reason
     * (Jetty's own stop would close them with 1001) and new ones are refused.
     */
    @Override
    public void beforeHttpStop() {
        sessions.shutdown(SHUTDOWN_WAIT);
    }

    /**
     * Graceful shutdown: jobs in flight stay claimed/running in the store, their runners
     * reconnect to the next server start (or another node) and carry on.
     */
    @Override
    public void close() {
        rolls.close();
        noiseSchedule.close();
        sessions.shutdown(SHUTDOWN_WAIT); // no-op when beforeHttpStop ran
        sweeper.shutdownNow();
        flusher.shutdownNow();
        flushQuietly();
        lifecycle.presence().shutdown();
        logs.close();
        deadlines.close();
        clusterChanges.close();
        bus.close();
        specsListener.run();
    }

    /**
     * A crash, for tests of node loss in one process: timers, sweeps, heartbeats and the cluster
     * listener stop at once and nothing is written (no flush, no stop mark), as if the process
     * had been killed. Channels are left to the caller to cut.
     */
    public void halt() {
        noiseSchedule.close();
        sweeper.shutdownNow();
        flusher.shutdownNow();
        deadlines.close();
        clusterChanges.close();
        bus.close();
        specsListener.run();
        lifecycle.presence().halt();
    }
}
