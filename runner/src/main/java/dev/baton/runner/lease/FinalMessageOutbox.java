package dev.baton.runner.lease;

import dev.baton.channelclient.outbox.FinalLeaseMessage;
import dev.baton.channelclient.outbox.Outbox;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The final words ({@code Complete}, {@code CancelAck}) this runner owes the server, written to
 * the outbox before they are first sent and deleted only when the server answers them with
 * {@code CompleteAck} or {@code StaleLease}: a server that cannot be reached, or a runner that dies
 * meanwhile, loses nothing (the server answers a resent word as the first time and applies it once;
 * a word whose lease has expired meanwhile is answered stale). An unreachable server is retried
 * without end, backing off; a word the server refuses with an HTTP error (a key revoked, say) is
 * dropped after {@code maxSends} refusals, as the runner channel drops a result.
 */
final class FinalMessageOutbox {
    private static final Logger log = LoggerFactory.getLogger(FinalMessageOutbox.class);

    private final Outbox outbox;
    private final LeaseServer server;
    private final Clock clock;
    private final Duration backoffBase;
    private final Duration backoffMax;
    private final int maxRefusals;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();

    /** One word waiting: not on its way while {@code sending} is false, next tried at {@code nextTry}. */
    private static final class Pending {
        FinalLeaseMessage word;
        boolean sending;
        Instant nextTry = Instant.MIN;
        int failures;

        Pending(FinalLeaseMessage word) {
            this.word = word;
        }
    }

    FinalMessageOutbox(
            Outbox outbox,
            LeaseServer server,
            Clock clock,
            Duration backoffBase,
            Duration backoffMax,
            int maxRefusals) {
        this.outbox = outbox;
        this.server = server;
        this.clock = clock;
        this.backoffBase = backoffBase;
        this.backoffMax = backoffMax;
        this.maxRefusals = maxRefusals;
    }

    /** At start-up: the words a previous run of the agent left undelivered, due at once. */
    void recover() {
        for (FinalLeaseMessage w : outbox.leaseWords()) pending.put(key(w), new Pending(w));
        if (!pending.isEmpty()) log.info("{} final word(s) from a previous run wait to be delivered", pending.size());
    }

    /** Keeps {@code word} on disk first, then it is due at once. */
    void add(FinalLeaseMessage word) {
        try {
            outbox.writeFinalLeaseMessage(word);
        } catch (UncheckedIOException e) {
            // Still sent from memory; only a crash before the server answers would lose it now.
            log.error("job {}: cannot write the final word to the outbox; it is kept in memory only", word.job(), e);
        }
        pending.put(key(word), new Pending(word));
    }

    int size() {
        return pending.size();
    }

    /** No word is on its way (each waits for its next try, or none is left). */
    boolean idle() {
        for (Pending p : pending.values()) {
            synchronized (p) {
                if (p.sending) return false;
            }
        }
        return true;
    }

    /** Sends every word that is due and not on its way, each on a thread of its own. */
    void sendDue() {
        Instant now = clock.instant();
        for (Pending p : pending.values()) {
            if (take(p, now)) Thread.ofVirtual().name("baton-lease-final").start(() -> send(p));
        }
    }

    private static boolean take(Pending p, Instant now) {
        synchronized (p) {
            if (p.sending || now.isBefore(p.nextTry)) return false;
            p.sending = true;
            return true;
        }
    }

    private void send(Pending p) {
        FinalLeaseMessage w = p.word;
        try {
            LeaseServer.Answer a = server.post(w.path(), w.message());
            if (a.is("CompleteAck")) {
                log.info(
                        "job {}: {} {}",
                        w.job(),
                        w.path(),
                        a.body().path("accepted").asBoolean() ? "accepted" : "not accepted");
                done(p);
            } else if (a.stale()) {
                log.info(
                        "job {}: {} answered StaleLease ({}); not sent again",
                        w.job(),
                        w.path(),
                        a.body().path("reason").asText());
                done(p);
            } else if (w.refusals() + 1 >= maxRefusals) {
                log.error(
                        "job {}: dropping the {}: refused {} times, last {} {}",
                        w.job(),
                        w.path(),
                        w.refusals() + 1,
                        a.status(),
                        a.error());
                done(p);
            } else {
                log.error("job {}: {} refused ({} {}); trying again", w.job(), w.path(), a.status(), a.error());
                p.word = w.withRefusals(w.refusals() + 1);
                outbox.writeFinalLeaseMessage(p.word);
                retryLater(p);
            }
        } catch (IOException e) {
            log.warn("job {}: {} not delivered yet: {}", w.job(), w.path(), e.toString());
            retryLater(p);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            retryLater(p);
        } catch (RuntimeException e) {
            log.error("job {}: sending the {} failed", w.job(), w.path(), e);
            retryLater(p);
        }
    }

    private void done(Pending p) {
        try {
            outbox.deleteFinalLeaseMessage(p.word);
        } catch (UncheckedIOException e) {
            // Resent at the next start and answered as the first time (or stale): harmless.
            log.error("job {}: cannot delete the answered final word from the outbox", p.word.job(), e);
        }
        pending.remove(key(p.word));
    }

    private void retryLater(Pending p) {
        synchronized (p) {
            p.failures++;
            long factor = 1L << Math.min(p.failures - 1, 16);
            Duration wait = backoffBase.multipliedBy(factor);
            p.nextTry = clock.instant().plus(wait.compareTo(backoffMax) > 0 ? backoffMax : wait);
            p.sending = false;
        }
    }

    private static String key(FinalLeaseMessage w) {
        return w.job() + "." + w.attempt();
    }
}
