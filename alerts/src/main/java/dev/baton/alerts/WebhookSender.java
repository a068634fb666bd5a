package dev.baton.alerts;

import dev.baton.protocol.message.Wire;
import dev.baton.store.Alert;
import dev.baton.store.AlertGroup;
import dev.baton.store.Store;
import dev.baton.store.WebhookDelivery;
import dev.baton.store.Webhooks;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the webhook outbox (docs/alerts.md, "Webhooks"), on every node, off the judging path:
 * every {@code pollEvery} it takes the deliveries due by the injected clock, each with a
 * compare-and-set that also sets when to retry should this node die mid-send, and POSTs the event
 * (a new alert, or change points a later judgement moved or withdrew) with its HMAC-SHA256 signature. A 2xx is delivered; anything else is tried again after
 * {@code 10 s × 2^attempts} (at most an hour), {@link #MAX_ATTEMPTS} times in all.
 */
public final class WebhookSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WebhookSender.class);
    public static final int MAX_ATTEMPTS = 12;
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(10);
    static final Duration MAX_BACKOFF = Duration.ofHours(1);
    /** How long a taken delivery waits before another node may try it (longer than one request may take). */
    static final Duration TAKEN_FOR = Duration.ofMinutes(2);

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final int BATCH = 50;

    private final Store store;
    private final Webhooks webhooks;
    private final Clock clock;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("baton-webhooks").daemon().factory());

    public WebhookSender(Store store, Clock clock, Duration pollEvery) {
        this.store = store;
        this.webhooks = store.alerts().webhooks();
        this.clock = clock;
        poller.scheduleWithFixedDelay(
                this::sendDueQuietly, pollEvery.toMillis(), pollEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The wait before attempt {@code attempts + 1}, after {@code attempts} failed ones. */
    static Duration backoff(int attempts) {
        Duration d = FIRST_BACKOFF.multipliedBy(1L << Math.min(attempts - 1, 20));
        return d.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : d;
    }

    /** Sends every delivery due now; returns how many attempts this node made. */
    public int sendDue() {
        Instant now = clock.instant();
        int made = 0;
        for (WebhookDelivery d : webhooks.dueDeliveries(now, BATCH)) {
            if (!webhooks.takeDelivery(d.id(), d.nextAttempt(), now.plus(TAKEN_FOR))) continue; // another node has it
            attempt(d);
            made++;
        }
        return made;
    }

    private void attempt(WebhookDelivery d) {
        Integer status = null;
        String error = null;
        try {
            String project = store.organizations()
                    .projectUuid(d.projectId())
                    .map(Object::toString)
                    .orElse(null);
            Object event = project == null ? null : event(d, project);
            if (event == null) {
                webhooks.recordAttempt(d.id(), null, "the alert or group no longer exists", null, null);
                return;
            }
            byte[] body = Wire.encode(event).getBytes(StandardCharsets.UTF_8);
            HttpRequest request = HttpRequest.newBuilder(URI.create(d.url()))
                    .timeout(REQUEST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .header("User-Agent", "baton-webhooks")
                    .header("X-Baton-Event", d.event())
                    .header("X-Baton-Delivery", String.valueOf(d.id()))
                    .header(WebhookSignature.HEADER, WebhookSignature.of(d.secret(), body))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build();
            status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status / 100 == 2) {
                webhooks.recordAttempt(d.id(), status, null, clock.instant(), null);
                return;
            }
            error = "the receiver answered " + status;
        } catch (IOException | IllegalArgumentException e) {
            error = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return; // stopping: the taken delivery is due again after TAKEN_FOR
        }
        int attempts = d.attempts() + 1;
        Instant next = attempts >= MAX_ATTEMPTS ? null : clock.instant().plus(backoff(attempts));
        webhooks.recordAttempt(d.id(), status, error, null, next);
    }

    /** The body of the delivery's event, read now; null when what it names no longer exists. */
    private Object event(WebhookDelivery d, String project) {
        if (WebhookDelivery.ALERT_CREATED.equals(d.event())) {
            Optional<Alert> alert =
                    d.alertUuid() == null ? Optional.empty() : store.alerts().findAlert(d.projectId(), d.alertUuid());
            if (alert.isEmpty()) return null;
            AlertGroup group = alert.get().groupUuid() == null
                    ? null
                    : store.alerts()
                            .groups()
                            .find(d.projectId(), alert.get().groupUuid())
                            .orElse(null);
            return AlertEvent.created(project, alert.get(), group);
        }
        if (d.groupUuid() == null || d.reportUuid() == null) return null;
        Optional<AlertGroup> group = store.alerts().groups().find(d.projectId(), d.groupUuid());
        if (group.isEmpty()) return null;
        return ChangePointEvent.of(
                d.event(),
                project,
                d.reportUuid(),
                group.get(),
                store.alerts().changePoints().ofGroups(List.of(group.get().id())));
    }

    private void sendDueQuietly() {
        try {
            sendDue();
        } catch (RuntimeException e) {
            // The database may be away for a moment; the next poll tries again.
            LOG.warn("webhook delivery failed: {}", e.toString());
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
