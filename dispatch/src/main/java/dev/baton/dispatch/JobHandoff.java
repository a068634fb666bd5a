package dev.baton.dispatch;

import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import dev.baton.store.Store;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A claimed job handed to its runner: the attempt registered as active with a wake-up for its
 * acceptance window, a pull token issued, and the send of its {@code job} message returned rather
 * than made, so that the {@link Dispatcher} sends it after it has given its waiters back (a send
 * is I/O, and no lock is held across I/O). The same for a pump's claims and a submission's.
 */
final class JobHandoff {
    private static final Logger LOG = LoggerFactory.getLogger(JobHandoff.class);

    private final Store store;
    private final ActiveJobs active;
    private final Deadlines deadlines;
    private final JobPullTokens pullTokens;
    private final BatonMetrics metrics;
    private final Duration acceptanceTimeout;
    private final Changes changes;
    /** Read when a window closes, not when it opens: the lifecycle sets it after the dispatcher is built. */
    private Dispatcher.AcceptanceTimeouts acceptanceTimeouts = job -> {};

    JobHandoff(
            Store store,
            ActiveJobs active,
            Deadlines deadlines,
            JobPullTokens pullTokens,
            BatonMetrics metrics,
            Duration acceptanceTimeout,
            Changes changes) {
        this.store = store;
        this.active = active;
        this.deadlines = deadlines;
        this.pullTokens = pullTokens;
        this.metrics = metrics;
        this.acceptanceTimeout = acceptanceTimeout;
        this.changes = changes;
    }

    void onAcceptanceTimeout(Dispatcher.AcceptanceTimeouts handler) {
        this.acceptanceTimeouts = handler;
    }

    /** Registers the attempt and its acceptance window, and returns the send of its {@code job} message. */
    Runnable hand(RunnerSession session, Job job, Instant now) {
        Spec spec = store.specs().findSpec(job.specId()).orElseThrow();
        ProjectUuid project = store.organizations().projectUuid(job.projectId()).orElseThrow();
        ActiveJob attempt = new ActiveJob(
                job.uuid(), job.lease(), session.runnerId(), job.attempt(), job.timeout(), job.projectId(), null, 0);
        active.put(attempt);
        // Only a wake-up: the deadline itself was written with the claim, and the store's sweep acts on it.
        deadlines.set(
                DeadlineKeys.accept(job.uuid()),
                now.plus(acceptanceTimeout),
                () -> acceptanceTimeouts.expired(attempt));
        metrics.claimed();
        String token = pullTokens.issue(session.runner().uuid(), project, job, now);
        ClaimedJob claimed = new ClaimedJob(
                job.uuid(), job.lease(), job.attempt(), spec.view(), job.config(), token, job.timeout(), job.created());
        LOG.info(
                "job {} attempt {} claimed by runner {}",
                job.uuid(),
                job.attempt(),
                session.runner().slug());
        return () -> {
            session.send(new ServerMessage.Job(claimed));
            changes.job(job.uuid());
            changes.runners();
        };
    }
}
