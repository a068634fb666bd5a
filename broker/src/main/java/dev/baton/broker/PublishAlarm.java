package dev.baton.broker;

import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in the log, as WARN, that offers cannot be published on NATS: at once when it starts, then
 * at most every {@link #EVERY} while it lasts (the pump fails every second, and a line per round
 * or per offer would bury everything else), and once, as INFO, when it ends. Without it a broker
 * whose JetStream was shut down left jobs pending for minutes with nothing in the log.
 * Time is the pump's clock, so tests move it instead of waiting.
 */
final class PublishAlarm {
    private static final Logger LOG = LoggerFactory.getLogger(PublishAlarm.class);
    static final Duration EVERY = Duration.ofSeconds(60);

    private Instant since;
    private Instant lastWarned;

    /** This round could not publish (or JetStream did not answer); {@code error} is why. */
    synchronized void failing(Instant now, String error) {
        if (since == null) since = now;
        if (lastWarned != null && now.isBefore(lastWarned.plus(EVERY))) return;
        lastWarned = now;
        LOG.warn(
                "transport A: offers cannot be published on NATS for {}s: {}. Jobs of the broker's specs stay pending (their offers wait "
                        + "in the database) until JetStream answers again; check that nats-server runs with JetStream (a config reload of a server "
                        + "started with -js but without a jetstream block in its config file shuts JetStream down: docs/operations.md)",
                Duration.between(since, now).toSeconds(),
                error);
    }

    /** This round published, or JetStream answered. */
    synchronized void ok(Instant now) {
        if (since == null) return;
        LOG.info(
                "transport A: offers are published on NATS again, after {}s",
                Duration.between(since, now).toSeconds());
        since = null;
        lastWarned = null;
    }
}
