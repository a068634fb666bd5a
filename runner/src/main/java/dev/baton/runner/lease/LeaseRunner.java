package dev.baton.runner.lease;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.WorkDirLock;
import dev.baton.runner.executor.BaselineImageRefusal;
import dev.baton.runner.executor.ExecutionEvents;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.Leftover;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runner agent on the NATS transport (docs/runner.md, "Transport A"; docs/protocol.md): pulls
 * {@code LeaseGranted} from its specs' JetStream queues while a slot is free, binds each with
 * {@code AckLease} before it acks the broker message (an offer it does not take goes back to the
 * queue for another runner), runs it with the same executors as the runner channel, heartbeats,
 * stops on CancelRequested (control subject or HeartbeatAck) and answers with CancelAck, and ends
 * with Complete, which it keeps in the work directory's outbox until the server answers it (also
 * across restarts: see {@link FinalMessageOutbox}). A StaleLease, or a whole lease TTL without a
 * renewal, stops the work and nothing more is said under that lease. This is a driver beside {@link RunnerMachine}, not inside it: the
 * channel's state machine has no notion of a broker.
 */
public final class LeaseRunner {
    private static final Logger log = LoggerFactory.getLogger(LeaseRunner.class);
    /** How long one pull waits for an offer before it looks at slots and signals again. */
    static final Duration PULL_WAIT = Duration.ofSeconds(2);
    /** How often the runner asks the server which specs it pulls (specs added to it later). */
    static final Duration SUBJECTS_EVERY = Duration.ofSeconds(30);

    /** Where the server and the broker are, and who this runner is. */
    public record Target(URI server, String runner, RunnerKey key, String natsUrl) {
        @Override
        public String toString() {
            return "Target[" + server + ", " + runner + ", " + natsUrlForLogs()
                    + "]"; // never the key, nor the broker password
        }

        /** The broker's URL without its userinfo, which holds the runner's NATS password. */
        public String natsUrlForLogs() {
            return natsUrl == null ? null : natsUrl.replaceAll("//[^@/,]*@", "//***@");
        }
    }

    private final MachineConfig config;
    private final Target target;
    private final Executor executor;
    private final Path workDir;
    private final Clock clock;
    private final LeaseServer server;
    /** Heartbeats and cancel requests for the held leases. */
    private final LeaseHeartbeats heartbeats;

    private final Map<String, LeasedJob> jobs = new ConcurrentHashMap<>();
    private final Set<String> pulling = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("baton-lease-tick").unstarted(r));
    private final Object slots = new Object();
    private int busy;
    private boolean quiet;
    private volatile Instant terminating;
    private volatile Instant subjectsDue = Instant.MIN;
    private volatile boolean controlListening;
    /** Connected once the server named the inbox prefix this runner's NATS user may read (the first LeaseSubjects). */
    private volatile LeaseQueue queue;

    private FinalMessageOutbox finalWords;

    public LeaseRunner(MachineConfig config, Target target, Executor executor, Path workDir, Clock clock) {
        this.config = config;
        this.target = target;
        this.executor = executor;
        this.workDir = workDir;
        this.clock = clock;
        this.server = new LeaseServer(
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build(),
                target.server(),
                target.runner(),
                target.key());
        this.heartbeats = new LeaseHeartbeats(server, target.runner(), clock, config.grace(), jobs);
    }

    /** SIGTERM/SIGINT: take no more offers, let jobs finish within the grace period, then stop them. TSTP: quiet; CONT: resume. */
    public void signal(Input.Signal signal) {
        synchronized (slots) {
            switch (signal) {
                case TERMINATE -> {
                    if (terminating == null) terminating = clock.instant();
                }
                case QUIET -> quiet = true;
                case RESUME -> quiet = false;
            }
            slots.notifyAll();
        }
    }

    /** Runs until terminated and every held job has ended (or the grace period and a last stop are over). */
    public int run() throws InterruptedException {
        WorkDirLock lock;
        try {
            lock = WorkDirLock.acquire(workDir);
        } catch (WorkDirLock.HeldException e) {
            log.error("not starting: {}", e.getMessage());
            return dev.baton.runner.RunnerAgent.EXIT_WORK_DIR_LOCKED;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock the work directory " + workDir, e);
        }
        try (lock) {
            return runLocked();
        } catch (IOException e) {
            log.warn("cannot release the work directory lock: {}", e.toString());
            return RunnerMachine.EXIT_OK;
        }
    }

    private int runLocked() throws InterruptedException {
        try {
            for (Leftover leftover : executor.sweep()) {
                // Their leases are unknown here; the server expires them after lease_ttl and requeues the jobs.
                log.warn("stopped what a previous agent left running for job {}: {}", leftover.job(), leftover.what());
            }
        } catch (RuntimeException e) {
            log.error("the start-up sweep failed; what a previous agent left may still run", e);
        }
        finalWords = new FinalMessageOutbox(
                new Outbox(workDir.resolve("outbox")),
                server,
                clock,
                config.backoffBase(),
                config.backoffMax(),
                config.maxSends());
        finalWords.recover(); // sent from the first tick on
        log.info(
                "runner agent {} starting on the NATS transport: {} slot(s), {} executor, server {}, broker {}",
                config.version(),
                config.slots(),
                executor.name(),
                target.server(),
                target.natsUrlForLogs());
        ticks.scheduleWithFixedDelay(this::tickQuietly, 0, 200, TimeUnit.MILLISECONDS);
        try {
            synchronized (slots) {
                while (true) {
                    Instant t = terminating;
                    if (t != null && jobs.isEmpty()) break;
                    if (t != null
                            && clock.instant().isAfter(t.plus(config.grace()).plusSeconds(30))) {
                        log.warn("{} job(s) still held 30 s after the grace period; exiting", jobs.size());
                        break;
                    }
                    slots.wait(200);
                }
            }
            if (finalWords.size() > 0)
                log.warn(
                        "exiting with {} undelivered final word(s); they stay in the outbox for the next start",
                        finalWords.size());
            log.info("runner agent exiting: terminated");
            return RunnerMachine.EXIT_OK;
        } finally {
            ticks.shutdownNow();
            jobs.values().forEach(j -> j.stop(LeaseOutcome.Stop.SHUTDOWN, Duration.ZERO));
            if (queue != null) queue.close();
        }
    }

    // ---- pulling ------------------------------------------------------------------------------------

    private void refreshSubjects() {
        try {
            var answer = server.subjects();
            if (!answer.is("LeaseSubjects")) {
                log.warn("the server refused to say where to pull: {} {}", answer.status(), answer.error());
                subjectsDue = clock.instant().plusSeconds(5);
                return;
            }
            JsonNode subjects = answer.body();
            if (queue == null) {
                try {
                    queue = LeaseQueue.connect(
                            target.natsUrl(),
                            target.runner(),
                            subjects.path("inbox_prefix").asText(null));
                } catch (IOException e) {
                    log.warn("cannot set up the NATS client for {}: {}", target.natsUrlForLogs(), e.getMessage());
                    subjectsDue = clock.instant().plusSeconds(5);
                    return;
                }
            }
            if (!controlListening) {
                queue.listen(subjects.path("control_subject").asText(), heartbeats::control);
                controlListening = true;
            }
            String stream = subjects.path("stream").asText();
            for (JsonNode s : subjects.path("specs")) {
                String spec = s.path("spec").asText();
                if (pulling.add(spec)) {
                    Thread.ofPlatform()
                            .daemon()
                            .name("baton-pull-" + spec)
                            .start(() -> pull(
                                    spec,
                                    stream,
                                    s.path("subject").asText(),
                                    s.path("consumer").asText()));
                }
            }
            if (subjects.path("specs").isEmpty()) log.info("no spec of this runner is offered on the broker yet");
        } catch (IOException e) {
            log.warn("cannot ask the server where to pull: {}", e.toString());
            subjectsDue = clock.instant().plusSeconds(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One spec's pull loop: while a slot is free, wait for an offer; take it or leave it to another runner. */
    private void pull(String spec, String stream, String subject, String consumer) {
        JetStreamSubscription sub = null;
        while (terminating == null) {
            try {
                if (!awaitFreeSlot()) continue;
                if (sub == null) sub = queue.pull(stream, subject, consumer);
                Message m = LeaseQueue.next(sub, PULL_WAIT);
                if (m == null) continue;
                if (!takeSlot()) {
                    m.nak(); // filled by another spec's offer meanwhile: another runner takes this one
                    continue;
                }
                take(m);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                log.debug("pull from {} failed (retrying): {}", subject, e.toString());
                sub = null;
                sleep(Duration.ofSeconds(1));
            }
        }
        log.debug("stopped pulling spec {}", spec);
    }

    private boolean awaitFreeSlot() throws InterruptedException {
        synchronized (slots) {
            if (terminating == null && (quiet || busy >= config.slots())) slots.wait(1000);
            return terminating == null && !quiet && busy < config.slots();
        }
    }

    private boolean takeSlot() {
        synchronized (slots) {
            if (terminating != null || quiet || busy >= config.slots()) return false;
            busy++;
            return true;
        }
    }

    private void freeSlot() {
        synchronized (slots) {
            busy--;
            slots.notifyAll();
        }
    }

    /** AckLease first, then the broker: the offer leaves the queue only once this runner holds the lease (or it is stale). */
    private void take(Message m) throws InterruptedException {
        LeaseGrant grant;
        try {
            grant = LeaseGrant.parse(m.getData());
        } catch (IOException e) {
            log.warn("dropped a message that is no Baton lease offer: {}", e.getMessage());
            m.term();
            freeSlot();
            return;
        }
        if (jobs.containsKey(grant.leaseId())) { // the broker delivered an offer this runner already holds
            m.ack();
            freeSlot();
            return;
        }
        LeaseServer.Answer answer;
        try {
            answer = server.post(
                    "ack",
                    new SeedMessages.AckLease(
                            grant.jobId(),
                            grant.leaseId(),
                            target.runner(),
                            clock.instant().toString()));
        } catch (IOException e) {
            log.warn(
                    "AckLease for job {} not answered ({}); the offer goes back to the queue",
                    grant.jobId(),
                    e.toString());
            m.nakWithDelay(Duration.ofSeconds(1));
            freeSlot();
            return;
        }
        if (answer.is("LeaseAccepted")) {
            m.ack();
            start(grant, answer.body());
        } else if (answer.stale()) {
            // Another runner bound it, or it was revoked or finished: never run it (seed 003).
            log.info(
                    "job {}: lease offer is stale ({}); not running it",
                    grant.jobId(),
                    answer.body().path("reason").asText());
            m.term();
            freeSlot();
        } else {
            log.warn(
                    "job {}: AckLease refused ({} {}); the offer goes back to the queue",
                    grant.jobId(),
                    answer.status(),
                    answer.error());
            m.nakWithDelay(Duration.ofSeconds(1));
            subjectsDue = clock.instant();
            freeSlot();
        }
    }

    private void start(LeaseGrant grant, JsonNode accepted) {
        LeasedJob job = new LeasedJob(
                grant, grant.withPullToken(accepted.path("oci_token").asText(null)), clock.instant());
        jobs.put(job.lease(), job);
        log.info(
                "job {} attempt {}: lease bound; {} on executor {}",
                grant.jobId(),
                accepted.path("attempt").asInt(),
                "preparing",
                executor.name());
        var refused = BaselineImageRefusal.check(executor, job.job);
        if (refused.isPresent()) {
            // Before prepare, as the agent on the runner channel does: nothing is pulled for it.
            log.info("job {}: declined ({})", grant.jobId(), refused.get().getMessage());
            finish(
                    job,
                    null,
                    LeaseOutcome.notStarted(refused.get().code(), refused.get().getMessage()));
            return;
        }
        try {
            job.execution(executor.prepare(job.job, events(job)));
        } catch (RuntimeException e) {
            log.error("job {}: the executor could not take it", grant.jobId(), e);
            finish(job, null, LeaseOutcome.notStarted(DeclineCode.EXECUTOR_ERROR, e.toString()));
        }
    }

    private ExecutionEvents events(LeasedJob job) {
        return new ExecutionEvents() {
            @Override
            public void progress(String message) {
                log.debug("job {}: {}", job.grant.jobId(), message);
            }

            @Override
            public void prepared() {
                job.prepared();
            }

            @Override
            public void declined(String reason) {
                finish(job, null, LeaseOutcome.notStarted(DeclineCode.OTHER, reason));
            }

            @Override
            public void declined(DeclineCode code, String reason) {
                finish(job, null, LeaseOutcome.notStarted(code, reason));
            }

            @Override
            public void started(Instant at) {
                job.started(at);
            }

            @Override
            public void finished(ExecutionResult result) {
                finish(
                        job,
                        result,
                        LeaseOutcome.of(result, job.stopReason(), job.grant.maxRuntimeSeconds(), config.grace()));
            }
        };
    }

    // ---- the final word -------------------------------------------------------------------------------

    /**
     * The attempt is over here: its final word goes to the outbox before the slot is free, and
     * {@link FinalMessageOutbox} delivers it from there, across restarts, until the server answers it.
     */
    private void finish(LeasedJob job, ExecutionResult result, LeaseOutcome outcome) {
        if (!job.end()) return; // reported already (a decline and then a finish of the same execution)
        List<IterationResult> results = result == null ? List.of() : result.results();
        FinalWord.of(job, target.runner(), outcome, results, clock.instant())
                .ifPresentOrElse(
                        finalWords::add,
                        () -> log.info("job {}: stopped after a stale lease; nothing to report", job.grant.jobId()));
        jobs.remove(job.lease());
        freeSlot();
        finalWords.sendDue();
    }

    // ---- the tick: heartbeats, timeouts, resends, shutdown ---------------------------------------------

    private void tickQuietly() {
        try {
            tick();
        } catch (RuntimeException e) {
            log.warn("lease tick failed: {}", e.toString());
        }
    }

    private void tick() {
        Instant now = clock.instant();
        if (terminating == null && !now.isBefore(subjectsDue)) {
            subjectsDue = now.plus(SUBJECTS_EVERY);
            refreshSubjects();
        }
        Instant t = terminating;
        boolean graceOver = t != null && !now.isBefore(t.plus(config.grace()));
        for (LeasedJob job : jobs.values()) {
            if (job.leaseSurelyExpired(now) && job.stale()) {
                log.warn(
                        "job {}: no lease renewal for {} s; the lease has expired: stopping it",
                        job.grant.jobId(),
                        job.grant.leaseTtl().toSeconds());
            }
            if (job.pastTimeout(now)) job.stop(LeaseOutcome.Stop.TIMEOUT, config.grace());
            if (graceOver) job.stop(LeaseOutcome.Stop.SHUTDOWN, Duration.ofSeconds(1));
            if (job.heartbeatDue(now))
                Thread.ofVirtual().name("baton-lease-heartbeat").start(() -> heartbeats.send(job));
        }
        finalWords.sendDue();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
