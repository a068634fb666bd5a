package dev.baton.dispatch;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.store.Job;
import dev.baton.store.token.JobPull;
import dev.baton.store.token.PullScope;
import dev.baton.store.token.PullTokens;
import java.time.Duration;
import java.time.Instant;

/**
 * The registry pull tokens of jobs (issue 41, docs/decisions/0041-job-pull-tokens.md): one per
 * claim, handed out with the {@code job} message or the NATS transport's LeaseAccepted, and one per
 * {@code pull_token} request while the attempt is live. Each is limited to its job's image and
 * attempt and ends at the job's hard timeout at the latest: its timeout plus job_timeout_grace,
 * counted from the start when the job has started, else from now (preparing is not run time; a
 * long pull refreshes instead). A job without an image (a command for a trusted runner) pulls
 * nothing and gets no token. A paired job's token fetches its baseline image too (issue 45).
 */
public final class JobPullTokens {
    private final PullTokens tokens;
    private final Duration grace;

    public JobPullTokens(PullTokens tokens, Duration grace) {
        this.tokens = tokens;
        this.grace = grace;
    }

    /** The token for {@code job}'s current attempt on {@code runner}, or null when the job pulls no image. */
    public String issue(RunnerUuid runner, ProjectUuid project, Job job, Instant now) {
        if (job.config().digest() == null) return null;
        Instant from = job.status() == JobStatus.RUNNING && job.started() != null ? job.started() : now;
        Instant hardTimeout = from.plusSeconds(job.timeout()).plus(grace);
        var paired = job.config().paired();
        PullScope scope = new PullScope(
                job.uuid(), job.attempt(), job.config().digest(), paired == null ? null : paired.baselineImage());
        return tokens.issue(new JobPull(runner, project, scope, hardTimeout), now);
    }

    /** True while {@code job}'s attempt may still pull: claimed or running (a pull token is refused after). */
    public static boolean live(Job job) {
        return job.status() == JobStatus.CLAIMED || job.status() == JobStatus.RUNNING;
    }
}
