package dev.baton.server.channel;

import dev.baton.protocol.value.PollTimeout;
import dev.baton.server.BeforeHttpStop;
import dev.baton.server.adapter.Adapters;
import dev.baton.server.config.ServerConfig;
import dev.baton.server.dispatch.ActiveJob;
import dev.baton.server.dispatch.ActiveJobs;
import dev.baton.server.dispatch.Changes;
import dev.baton.server.dispatch.Deadlines;
import dev.baton.server.dispatch.Dispatcher;
import dev.baton.server.dispatch.JobEvents;
import dev.baton.server.dispatch.JobLifecycle;
import dev.baton.server.dispatch.JobQueue;
import dev.baton.server.dispatch.PendingExplainer;
import dev.baton.server.dispatch.QueueStatus;
import dev.baton.server.dispatch.LifecycleSettings;
import dev.baton.server.dispatch.Liveness;
import dev.baton.server.http.RouteModule;
import dev.baton.server.logs.LiveLogs;
import dev.baton.server.logs.LogRoutes;
import dev.baton.server.metrics.BatonMetrics;
import dev.baton.server.output.OutputStore;
import dev.baton.server.output.ResultProcessor;
import dev.baton.server.store.Job;
import dev.baton.server.store.Store;
import io.javalin.http.Handler;
import dev.baton.server.token.PullTokens;
import dev.baton.server.token.ReusedPullTokens;
import java.time.Clock;
import java.util.Optional;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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
    private final PendingExplainer explainer;
    private final ReadTimer readTimer;
    private final ChannelRoutes routes;
    private final ServerConfig config;
    private final OutputStore outputs;
    private final LiveLogs logs = new LiveLogs();
    private final Changes changes = new Changes();
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-heartbeat-flush").daemon().factory());

    public RunnerChannel(Store store, ServerConfig config, Clock clock, PullTokens pullTokens, OutputStore outputs, BatonMetrics metrics) {
        this.store = store;
        this.config = config;
        this.outputs = outputs;
        this.deadlines = new Deadlines(clock);
        this.dispatcher = new Dispatcher(store, active, deadlines, new ReusedPullTokens(pullTokens, config.pullTokenTtl()), metrics, clock, config.acceptanceTimeout(), changes);
        ResultProcessor results = new ResultProcessor(store, outputs, new Adapters(), metrics, clock, changes);
        this.explainer = new PendingExplainer(store, sessions, clock, config.heartbeatTimeout());
        this.lifecycle = new JobLifecycle(store, active, deadlines, dispatcher, sessions, liveness, results, metrics, clock,
                LifecycleSettings.of(config), logs, explainer, changes);
        this.readTimer = new ReadTimer(sessions, lifecycle, deadlines, clock, config.heartbeatTimeout());
        this.routes = new ChannelRoutes(store, sessions, dispatcher, lifecycle, liveness, clock, config.requestBodyMaxBytes(),
                PollTimeout.of((int) config.defaultPollTimeout().toSeconds()), config.heartbeatTimeout());
        metrics.gauge("baton.runners.connected", "Runners with an open channel", sessions::size);
        metrics.gauge("baton.runners.waiting", "Runners waiting for a job", dispatcher::waiting);
        metrics.gauge("baton.jobs.in_flight", "Claimed or running attempts", active::size);
        metrics.pendingByReason(java.util.Arrays.stream(dev.baton.server.dispatch.PendingReason.Code.values())
                .map(dev.baton.server.dispatch.PendingReason.Code::wireName).toList(), explainer::pendingByReason);
    }

    /** What watchers (the console) hear: the changes dispatch sees. */
    public Changes changes() {
        return changes;
    }

    /** The runner's open channel and what it does now, empty when it is not connected to this node. */
    public Optional<RunnerActivity> activity(long runnerId) {
        return sessions.of(runnerId).map(s -> new RunnerActivity(s.connected(), s.drainState(),
                active.ofRunner(runnerId).stream().map(ActiveJob::job).toList(), dispatcher.freeSlots(runnerId)));
    }

    public RouteModule routes() {
        return routes;
    }

    /** Admin routes that talk to connected runners: drain, update, and per-organization usage. */
    public RouteModule controlRoutes() {
        return new RunnerControlRoutes(store, sessions);
    }

    /** {@code GET /v0/projects/{p}/jobs/{j}/logs}: live logs from this node's tails, whole logs from stored output. */
    public RouteModule logRoutes() {
        return new LogRoutes(store, outputs, logs);
    }

    /** The job log handler of {@link #logRoutes} for the console, which checks its own sign-in first (the /v0 route is guarded by AccessControl in front of it). */
    public Handler logStream() {
        return new LogRoutes(store, outputs, logs).unguarded();
    }

    @Override
    public void jobSubmitted(Job job) {
        changes.job(job.uuid());
        lifecycle.queued(job);
        dispatcher.jobPending(job.specId());
    }

    @Override
    public Optional<QueueStatus> status(Job job) {
        return explainer.status(job);
    }

    @Override
    public void jobCanceled(Job before, Job after) {
        changes.job(before.uuid());
        lifecycle.userCanceled(before);
        // A follower of a job canceled before it ran ends now; a running one ends with its attempt.
        if (!before.status().inFlight()) logs.attemptEnded(before.uuid());
    }

    public Sessions sessions() {
        return sessions;
    }

    /** Fires due deadlines now: tests advance their clock and call this instead of waiting. */
    public int runDueDeadlines() {
        return deadlines.runDue();
    }

    /** Writes batched heartbeats now (also done every heartbeat_flush_interval). */
    public void flushHeartbeats() {
        liveness.flush(store);
    }

    /** Recovers in-flight work from the store, then starts the deadline loop, the read timer and heartbeat flushing. */
    public void start() {
        lifecycle.recover();
        readTimer.start();
        deadlines.start();
        long every = Math.max(10, config.heartbeatFlushInterval().toMillis());
        flusher.scheduleWithFixedDelay(this::flushQuietly, every, every, TimeUnit.MILLISECONDS);
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
        sessions.shutdown(SHUTDOWN_WAIT); // no-op when beforeHttpStop ran
        lifecycle.shutdown();
        logs.close();
        deadlines.close();
        flusher.shutdownNow();
        flushQuietly();
    }
}
