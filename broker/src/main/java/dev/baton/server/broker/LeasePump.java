package dev.baton.server.broker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.server.config.BrokerSettings;
import dev.baton.server.store.Job;
import dev.baton.server.store.LeaseOffer;
import dev.baton.server.store.LeaseOffers;
import dev.baton.server.store.Spec;
import dev.baton.server.store.Store;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves transport A's leases along, on every node: revokes offers not acknowledged within the
 * acceptance window, expires bound leases whose heartbeats stopped (their jobs go back to the
 * queue), offers pending jobs of the broker's specs (the outbox row, in a transaction that finds
 * the job pending), and publishes the outbox to JetStream. Each step is a compare-and-set in the
 * store, so several nodes pumping at once act once per lease.
 */
public final class LeasePump {
    private static final Logger LOG = LoggerFactory.getLogger(LeasePump.class);
    /** Offers granted, or published, per transaction. */
    static final int BATCH = 100;
    /**
     * How long the stream's acknowledgements of one published batch are awaited; those missing
     * then are published again in a later round (the stream stores a repeat once).
     */
    static final Duration PUBLISH_WAIT = Duration.ofSeconds(5);
    /**
     * How long a pump's claim on the offers it publishes keeps other nodes' pumps off them: longer
     * than {@link #PUBLISH_WAIT}, so a live pump marks or releases them first; a node that died
     * holding claims delays its offers by at most this.
     */
    static final Duration PUBLISH_CLAIM = Duration.ofSeconds(15);
    /**
     * How long the broker waits for a runner's ack of a pulled offer before delivering it again. A
     * runner acks after the server answered its AckLease (one HTTP round trip), so this is generous.
     */
    static final Duration CONSUMER_ACK_WAIT = Duration.ofSeconds(30);

    private final Store store;
    private final LeaseOffers offers;
    private final NatsBroker broker;
    private final BrokerSettings settings;
    private final Clock clock;
    private final Duration acceptance;
    private final int maxRequeues;
    private final BrokerMetrics metrics;
    /** What follows an expiry outside the store: the lifecycle forgets the attempt, idle channel runners are woken. */
    private final Consumer<LeaseOffers.Expired> expired;

    LeasePump(Store store, NatsBroker broker, BrokerSettings settings, Clock clock, Duration acceptance, int maxRequeues, BrokerMetrics metrics,
            Consumer<LeaseOffers.Expired> expired) {
        this.store = store;
        this.offers = store.leaseOffers();
        this.broker = broker;
        this.settings = settings;
        this.clock = clock;
        this.acceptance = acceptance;
        this.maxRequeues = maxRequeues;
        this.metrics = metrics;
        this.expired = expired;
    }

    /** One round of every step; returns how many offers were published. */
    public synchronized int pump() {
        Instant now = clock.instant();
        int revoked = offers.revokeDue(now);
        if (revoked > 0) metrics.revoked(revoked);
        for (LeaseOffers.Expired e : offers.expireDue(now, maxRequeues, null)) {
            metrics.expired();
            expired.accept(e);
        }
        grant(now);
        return publish(now);
    }

    private void grant(Instant now) {
        Set<Long> specIds = brokerSpecs();
        if (specIds.isEmpty()) return;
        Map<Long, Spec> specs = store.listSpecs(false).stream().collect(Collectors.toMap(Spec::id, s -> s));
        for (long id : specIds) consumerOf(specs.get(id));
        while (true) {
            List<LeaseOffer> granted = offers.grant(specIds, now, now.plus(acceptance), BATCH, (job, lease) -> message(job, lease, specs.get(job.specId())));
            if (granted.size() < BATCH) break;
        }
    }

    /** The spec's consumer on the broker; a broker that is down gets it on a later round. */
    private void consumerOf(Spec spec) {
        if (spec == null) return;
        try {
            broker.ensureConsumer(spec.slug().value(), CONSUMER_ACK_WAIT);
        } catch (Exception e) {
            LOG.debug("consumer for spec {} not made sure of yet: {}", spec.slug().value(), e.toString());
        }
    }

    private Set<Long> brokerSpecs() {
        return store.listSpecs(false).stream().filter(s -> settings.offers(s.slug().value())).map(Spec::id).collect(Collectors.toSet());
    }

    /**
     * The outbox, a batch at a time: claim up to {@link #BATCH} offers in one transaction, publish
     * them all before awaiting any acknowledgement, then mark those the stream stored in one
     * transaction. An offer is marked only after its acknowledgement; one whose publish failed is
     * released for the next round (any node's). A node that dies between publish and mark leaves
     * its rows claimed until {@link #PUBLISH_CLAIM} passes; then they are published again, and
     * the stream's duplicate window (or else the first AckLease, which binds the lease) makes the
     * repeat harmless.
     */
    private int publish(Instant now) {
        int published = 0;
        while (true) {
            List<LeaseOffer> due = offers.claimUnpublished(now, now.plus(PUBLISH_CLAIM), BATCH);
            if (due.isEmpty()) return published;
            NatsBroker.Published result = broker.publishOffers(due, PUBLISH_WAIT);
            offers.markPublished(result.stored(), now);
            metrics.published(result.stored().size());
            published += result.stored().size();
            if (!result.failed().isEmpty()) {
                // The rows stay in the outbox; the next round publishes them (any node's).
                offers.releaseClaims(result.failed());
                LOG.debug("{} offers not published yet: {}", result.failed().size(), result.error());
                return published;
            }
            if (due.size() < BATCH) return published;
        }
    }

    /** The LeaseGranted of {@code job} under {@code lease}: seed 003's fields, Baton's job under job_spec.baton. */
    LeaseOffers.Message message(Job job, LeaseId lease, Spec spec) {
        JobConfig c = job.config();
        ClaimedJob claimed = new ClaimedJob(job.uuid(), lease, job.attempt() + 1, spec.view(), c, null, job.timeout(), job.created());
        JsonNode baton = Wire.mapper().valueToTree(claimed);
        List<String> steps = new ArrayList<>();
        if (c.entrypoint() != null) steps.addAll(c.entrypoint());
        if (c.cmd() != null) steps.addAll(c.cmd());
        String image = c.digest() == null ? null : c.registry() + "/" + c.project() + "@" + c.digest().value();
        List<LeaseMessages.ArtifactRule> artifacts = c.filePaths() == null ? List.of()
                : c.filePaths().stream().map(p -> new LeaseMessages.ArtifactRule("file", p)).toList();
        var spec003 = new LeaseMessages.JobSpec(spec.slug().value(), ".", image, steps.isEmpty() ? List.of() : List.of(shellLine(steps)),
                c.env(), artifacts, List.of(), baton);
        var granted = new LeaseMessages.LeaseGranted("LeaseGranted", job.uuid().toString(), String.valueOf(reportUuid(job)), lease.value(),
                settings.leaseTtl().toSeconds(), settings.heartbeatInterval().toSeconds(), job.timeout(), spec003, null);
        return new LeaseOffers.Message(NatsBroker.leaseSubject(spec.slug().value()), Wire.encode(granted));
    }

    /**
     * The command as one line for a POSIX shell (seed 003's steps are shell lines): each word that
     * is not plainly safe is single-quoted, so {@code sh -c "echo a; exit 3"} stays three words.
     */
    static String shellLine(List<String> words) {
        StringBuilder line = new StringBuilder();
        for (String w : words) {
            if (!line.isEmpty()) line.append(' ');
            line.append(!w.isEmpty() && w.matches("[A-Za-z0-9_@%+=:,./-]+") ? w : "'" + w.replace("'", "'\\''") + "'");
        }
        return line.toString();
    }

    /** Seed 003's run: Baton's report, which a job belongs to (by its id here; the report's UUID is in the API). */
    private static long reportUuid(Job job) {
        return job.reportId();
    }
}
