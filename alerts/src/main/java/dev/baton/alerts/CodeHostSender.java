package dev.baton.alerts;

import dev.baton.store.CodeHost;
import dev.baton.store.CodeHostComment;
import dev.baton.store.CodeHostDelivery;
import dev.baton.store.CodeHosts;
import dev.baton.store.Store;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends judged reports to the code hosts of their pull requests (docs/pull-requests.md), from
 * the outbox, on every node, as {@link WebhookSender} sends webhooks: each due delivery is taken
 * with a compare-and-set and retried with the same backoff. One delivery sets the commit's verdict
 * and writes the sticky comment of its pull request, branch and testbed, holding that comment in
 * the store while it writes: a comment with an id on the host is updated; one without is looked
 * for on the host by its marker (a node that died after creating it) and only then created. A
 * comment held by another node postpones the delivery by {@link #HELD_RETRY}, not counted as an
 * attempt; an older report than the one the comment shows does not overwrite it.
 */
public final class CodeHostSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CodeHostSender.class);
    static final Duration HELD_RETRY = Duration.ofSeconds(2);
    private static final int BATCH = 50;

    private final Store store;
    private final CodeHosts hosts;
    private final Clock clock;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-code-hosts").daemon().factory());

    public CodeHostSender(Store store, Clock clock, Duration pollEvery) {
        this.store = store;
        this.hosts = store.alerts().codeHosts();
        this.clock = clock;
        poller.scheduleWithFixedDelay(
                this::sendDueQuietly, pollEvery.toMillis(), pollEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Sends every delivery due now; returns how many this node took. */
    public int sendDue() {
        Instant now = clock.instant();
        int made = 0;
        for (CodeHostDelivery d : hosts.dueDeliveries(now, BATCH)) {
            if (!hosts.takeDelivery(d.id(), d.nextAttempt(), now.plus(WebhookSender.TAKEN_FOR))) continue;
            attempt(d);
            made++;
        }
        return made;
    }

    private ReviewApi api(CodeHost h) {
        return CodeHost.GITHUB.equals(h.kind())
                ? new GitHubApi(http, h.apiUrl(), h.repository(), h.token(), clock)
                : new GitLabApi(http, h.apiUrl(), h.repository(), h.token());
    }

    private void attempt(CodeHostDelivery d) {
        Integer status = null;
        String error;
        try {
            String project = store.organizations()
                    .projectUuid(d.host().projectId())
                    .map(Object::toString)
                    .orElse(null);
            if (project == null) {
                hosts.recordAttempt(d.id(), null, "the project no longer exists", null, null);
                return;
            }
            ResultsSummary summary = ResultsSummary.of(
                    store.alerts(),
                    d.host().projectId(),
                    project,
                    d.reportId(),
                    d.reportUuid(),
                    d.branch(),
                    d.testbed(),
                    d.hash());
            ReviewApi api = api(d.host());
            api.verdict(d, summary, hosts);
            Instant now = clock.instant();
            Optional<CodeHostComment> held = hosts.takeComment(
                    d.host().id(), d.number(), d.branch(), d.testbed(), now, now.plus(WebhookSender.TAKEN_FOR));
            if (held.isEmpty()) {
                hosts.postpone(d.id(), now.plus(HELD_RETRY)); // another node is writing the comment
                return;
            }
            writeComment(api, d, held.get(), summary, project);
            hosts.recordAttempt(d.id(), 200, null, clock.instant(), null);
            return;
        } catch (HostHttp.Failed e) {
            status = e.status;
            error = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return; // stopping: the taken delivery is due again after TAKEN_FOR
        }
        int attempts = d.attempts() + 1;
        Instant next =
                attempts >= WebhookSender.MAX_ATTEMPTS ? null : clock.instant().plus(WebhookSender.backoff(attempts));
        hosts.recordAttempt(d.id(), status, error, null, next);
    }

    /** Writes the held comment and releases it, also when the host refuses. */
    private void writeComment(
            ReviewApi api, CodeHostDelivery d, CodeHostComment c, ResultsSummary summary, String project)
            throws HostHttp.Failed, InterruptedException {
        String remote = null;
        boolean written = false;
        try {
            if (c.reportId() != null && c.reportId() > d.reportId()) return; // it shows a newer report
            remote = c.remoteId();
            if (remote == null) remote = api.findComment(d, ResultsSummary.marker(project, d.branch(), d.testbed()));
            if (remote != null && !api.updateComment(d, remote, summary.markdown())) remote = null;
            if (remote == null) remote = api.createComment(d, summary.markdown());
            written = true;
        } finally {
            hosts.releaseComment(c.id(), remote, written ? d.reportId() : null, clock.instant());
        }
    }

    private void sendDueQuietly() {
        try {
            sendDue();
        } catch (RuntimeException e) {
            // The database may be away for a moment; the next poll tries again.
            LOG.warn("code host delivery failed: {}", e.toString());
        }
    }

    @Override
    public void close() {
        poller.shutdownNow();
        try {
            poller.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
