package dev.baton.broker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.BrokerSettings;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.store.Job;
import dev.baton.store.LeaseOffer;
import dev.baton.store.LeaseOffers;
import dev.baton.store.Spec;
import dev.baton.store.Store;
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
    /**
     * How often a round asks JetStream whether it is there ({@code $JS.API.INFO}) while it was seen
     * available (a JetStream that went away while nothing was offered shows on /ready and /metrics,
     * and in the log, within this; a failed publish says so at once). While it is not, every round
     * asks, and publishes nothing until it answers.
     */
    static final Duration JETSTREAM_CHECK_EVERY = Duration.ofSeconds(5);

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

    private final PublishAlarm alarm = new PublishAlarm();

    LeasePump(
            Store store,
            NatsBroker broker,
            BrokerSettings settings,
            Clock clock,
            Duration acceptance,
            int maxRequeues,
            BrokerMetrics metrics,
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
        Round round = new Round(now);
        broker.checkJetStream(now, JETSTREAM_CHECK_EVERY);
        NatsBroker.JetStreamHealth jetStream = broker.jetStream();
        if (!jetStream.available()) {
            // New offers are still written (the outbox), but nothing is sent to a JetStream that does not answer.
            round.brokerFailed = true;
            round.error = "JetStream does not answer: " + jetStream.error();
        }
        grant(round);
        publishOrphans(round);
        if (round.brokerFailed) alarm.failing(now, round.error);
        else alarm.ok(now);
        return round.published;
    }

    /** What a round published so far, and whether the broker failed it (then the rest waits for a later round). */
    private static final class Round {
        final Instant now;
        int published;
        boolean brokerFailed;
        String error;

        Round(Instant now) {
            this.now = now;
        }
    }

    /**
     * Offers the pending jobs of the broker's specs, a batch per transaction, and publishes each
     * batch at once: the offers are born claimed by this pump, so no other node's pump publishes
     * them meanwhile and this one needs no claim of its own.
     */
    private void grant(Round round) {
        Set<Long> specIds = brokerSpecs();
        if (specIds.isEmpty()) return;
        Map<Long, Spec> specs = store.specs().listSpecs(false).stream().collect(Collectors.toMap(Spec::id, s -> s));
        if (!round.brokerFailed) for (long id : specIds) consumerOf(specs.get(id));
        while (true) {
            List<LeaseOffer> granted = offers.grant(
                    specIds,
                    round.now,
                    round.now.plus(acceptance),
                    round.now.plus(PUBLISH_CLAIM),
                    BATCH,
                    (job, lease) -> message(job, lease, specs.get(job.specId())));
            if (round.brokerFailed)
                offers.releaseClaims(granted.stream().map(LeaseOffer::lease).toList());
            else publishClaimed(granted, round);
            if (granted.size() < BATCH) break;
        }
    }

    /**
     * Offers in the outbox that no pump holds: granted by a node that died or whose broker failed,
     * or whose claim ran out. Claimed a batch per transaction, then published like a new batch.
     */
    private void publishOrphans(Round round) {
        while (!round.brokerFailed) {
            List<LeaseOffer> due = offers.claimUnpublished(round.now, round.now.plus(PUBLISH_CLAIM), BATCH);
            if (due.isEmpty()) return;
            publishClaimed(due, round);
            if (due.size() < BATCH) return;
        }
    }

    /** The spec's consumer on the broker; a broker that is down gets it on a later round. */
    private void consumerOf(Spec spec) {
        if (spec == null) return;
        try {
            broker.ensureConsumer(spec.slug().value(), CONSUMER_ACK_WAIT);
        } catch (Exception e) {
            LOG.debug(
                    "consumer for spec {} not made sure of yet: {}", spec.slug().value(), e.toString());
        }
    }

    private Set<Long> brokerSpecs() {
        return store.specs().listSpecs(false).stream()
                .filter(s -> settings.offers(s.slug().value()))
                .map(Spec::id)
                .collect(Collectors.toSet());
    }

    /**
     * Publishes offers this pump holds the claim on, all before awaiting any acknowledgement, then
     * marks those the stream stored published in one transaction: an offer is marked only after
     * its acknowledgement. Those it did not store are released for the next round (any node's). A
     * node that dies between publish and mark leaves its offers claimed until
     * {@link #PUBLISH_CLAIM} passes; another pump then publishes them again, and the stream's
     * duplicate window (or else the first AckLease, which binds the lease) makes the repeat harmless.
     */
    private void publishClaimed(List<LeaseOffer> claimed, Round round) {
        if (claimed.isEmpty()) return;
        NatsBroker.Published result = broker.publishOffers(claimed, PUBLISH_WAIT, round.now);
        offers.markPublished(result.stored(), round.now);
        metrics.published(result.stored().size());
        round.published += result.stored().size();
        if (!result.failed().isEmpty()) {
            offers.releaseClaims(result.failed());
            round.brokerFailed = true;
            round.error = result.error();
            LOG.debug("{} offers not published yet: {}", result.failed().size(), result.error());
        }
    }

    /** The LeaseGranted of {@code job} under {@code lease}: seed 003's fields, Baton's job under job_spec.baton. */
    LeaseOffers.Message message(Job job, LeaseId lease, Spec spec) {
        JobConfig c = job.config();
        ClaimedJob claimed = new ClaimedJob(
                job.uuid(), lease, job.attempt() + 1, spec.view(), c, null, job.timeout(), job.created());
        JsonNode baton = Wire.mapper().valueToTree(claimed);
        List<String> steps = new ArrayList<>();
        if (c.entrypoint() != null) steps.addAll(c.entrypoint());
        if (c.cmd() != null) steps.addAll(c.cmd());
        String image = c.digest() == null
                ? null
                : c.registry() + "/" + c.project() + "@" + c.digest().value();
        List<LeaseMessages.ArtifactRule> artifacts = c.filePaths() == null
                ? List.of()
                : c.filePaths().stream()
                        .map(p -> new LeaseMessages.ArtifactRule("file", p))
                        .toList();
        // env is always sent, {} when the job has none: seed 003's job_spec always has it.
        var spec003 = new LeaseMessages.JobSpec(
                spec.slug().value(),
                ".",
                image,
                steps.isEmpty() ? List.of() : List.of(shellLine(steps)),
                c.env() == null ? Map.of() : c.env(),
                artifacts,
                List.of(),
                baton);
        var granted = new LeaseMessages.LeaseGranted(
                "LeaseGranted",
                job.uuid().toString(),
                String.valueOf(reportUuid(job)),
                lease.value(),
                settings.leaseTtl().toSeconds(),
                settings.heartbeatInterval().toSeconds(),
                job.timeout(),
                spec003,
                null);
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
