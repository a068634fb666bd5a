package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.core.config.BrokerSettings;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.lease.LeaseRunner;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.testing.TestImages;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.ConsumerInfo;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java runner on the NATS transport ({@link LeaseRunner}, as {@code baton runner up --transport nats}
 * runs it) against the real assembled server and a real nats-server: jobs offered on the broker,
 * pulled, bound with AckLease, run by the process executor, heartbeated, canceled through the
 * control subject, and stopped by a stale lease. The server's clock can be moved ahead to expire
 * a lease or revoke an offer; the runner keeps the real one.
 */
@Tag("nats")
abstract class LeaseRunnerContract {
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Short, so that heartbeats come every second (lease_ttl / 6). */
    private static final Duration LEASE_TTL = Duration.ofSeconds(6);

    @TempDir
    Path dir;

    NatsServerProcess nats;
    BatonUnderTest baton;
    final ShiftedClock serverClock = new ShiftedClock();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<LeaseRunner> runners = new ArrayList<>();
    final List<Path> homes = new ArrayList<>();
    private int registered;
    private final Map<String, RunnerKey> keys = new java.util.concurrent.ConcurrentHashMap<>();
    /** The agent {@link #runnerAs} started last. */
    LeaseRunner last;

    abstract String databaseUrl();

    @BeforeAll
    static void requireNats() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping the NATS transport");
    }

    @BeforeEach
    void start() throws Exception {
        nats = new NatsServerProcess(dir.resolve("nats"));
        baton = new BatonUnderTest(
                dir.resolve("server"),
                databaseUrl(),
                b -> b.broker(new BrokerSettings(nats.url(), "nats", Set.of(), LEASE_TTL)),
                serverClock);
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("host", host);
    }

    @AfterEach
    void stop() throws Exception {
        runners.forEach(r -> r.signal(Input.Signal.TERMINATE));
        threads.shutdown();
        threads.awaitTermination(40, TimeUnit.SECONDS);
        threads.shutdownNow();
        if (baton != null) baton.close();
        if (nats != null) nats.close();
    }

    /** A runner of the host spec on the NATS transport with the process executor, running in the background. */
    Future<Integer> runner(int slots) {
        return runner(slots, baton.url());
    }

    /** As {@link #runner(int)}, reaching the server at {@code server} (a proxy, say); its home is the last of {@link #homes}. */
    Future<Integer> runner(int slots, URI server) {
        BatonUnderTest.Registered created = baton.runner("lease runner " + (++registered), "host");
        String slug = created.slug();
        Path home = dir.resolve(slug);
        homes.add(home);
        keys.put(slug, created.key());
        return runnerAs(slug, slots, server);
    }

    /** A new agent of the registered runner {@code slug} on its home (the same work directory and outbox), as after a restart. */
    Future<Integer> runnerAs(String slug, int slots, URI server) {
        Path home = dir.resolve(slug);
        LeaseRunner runner = new LeaseRunner(
                MachineConfig.defaults("test").withSlots(slots).withGrace(Duration.ofSeconds(5)),
                new LeaseRunner.Target(server, slug, keys.get(slug), nats.url()),
                new ProcessExecutor(
                        home.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true),
                home,
                Clock.systemUTC());
        runners.add(runner);
        last = runner;
        return threads.submit(runner::run);
    }

    String submit(List<String> cmd, int timeout) {
        return baton.post(
                        "/v0/run",
                        Map.of("project", "bench", "spec", "host", "cmd", cmd, "timeout", timeout, "adapter", "json"))
                .at("/job/uuid")
                .asText();
    }

    /**
     * A job that opted in to run again when its runner is lost: on the NATS transport as on the channel,
     * a started job whose lease expires fails unless it did (brief §1; docs/protocol.md, "Transport A").
     */
    String submitRetryingWhenLost(List<String> cmd, int timeout) {
        return baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "cmd",
                                cmd,
                                "timeout",
                                timeout,
                                "adapter",
                                "json",
                                "retry",
                                Map.of("max_attempts", 2, "backoff_seconds", 0, "retry_when_runner_lost", true)))
                .at("/job/uuid")
                .asText();
    }

    JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }

    JsonNode awaitStatus(String uuid, String... statuses) {
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> List.of(statuses).contains(job(uuid).get("status").asText()));
        return job(uuid);
    }

    /** A shell command that appends its process id to {@code file} and then runs {@code then}. */
    static List<String> recordingPid(Path file, String then) {
        return List.of("sh", "-c", "echo $$ >> " + file + "; " + then);
    }

    static List<Long> pids(Path file) throws Exception {
        if (!Files.exists(file)) return List.of();
        return Files.readAllLines(file).stream()
                .filter(l -> !l.isBlank())
                .map(Long::parseLong)
                .toList();
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    // ---- the tests ----------------------------------------------------------------------------------

    @Test
    void jobsRunThroughTheBrokerAndComplete() {
        runner(2);
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            jobs.add(submit(List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":" + i + "}}}'"), 60));
        }
        for (String uuid : jobs) {
            JsonNode done = awaitStatus(uuid, "processed");
            assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
            assertThat(done.at("/output/results/0/stdout").asText()).contains("latency");
            assertThat(done.get("attempts"))
                    .as("one attempt, completed, through the broker")
                    .singleElement()
                    .satisfies(a -> {
                        assertThat(a.get("outcome").asText()).isEqualTo("completed");
                        assertThat(a.get("transport").asText()).isEqualTo("nats");
                    });
        }
    }

    @Test
    void aPairedRunRunsBothSidesUnderOneLeaseAndIsJudged() {
        // Issue 45 on the NATS transport: the paired config travels in the job as on the channel.
        runner(1);
        JsonNode created = baton.post(
                "/v0/run",
                Map.of(
                        "project",
                        "bench",
                        "spec",
                        "host",
                        "cmd",
                        List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":200}}}'"),
                        "baseline",
                        Map.of("cmd", List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":100}}}'")),
                        "pairs",
                        3,
                        "timeout",
                        60,
                        "adapter",
                        "json"));
        JsonNode done = awaitStatus(created.at("/job/uuid").asText(), "processed");
        assertThat(done.get("attempts"))
                .singleElement()
                .satisfies(a -> assertThat(a.get("transport").asText()).isEqualTo("nats"));
        JsonNode paired = baton.get("/v0/projects/bench/reports/"
                        + created.at("/report/uuid").asText())
                .get("paired");
        assertThat(paired.get("pairs").asInt()).isEqualTo(3);
        for (JsonNode run : paired.get("runs")) {
            assertThat(run.at("/baseline/sort/latency/value").asInt()).isEqualTo(100);
            assertThat(run.at("/candidate/sort/latency/value").asInt()).isEqualTo(200);
        }
        assertThat(paired.at("/verdicts/0/verdict").asText()).isEqualTo("slower");
    }

    @Test
    void aPairedRunWithABaselineImageIsRefusedBeforeTheProcessExecutorPreparesIt() throws Exception {
        // Issue 45 on the NATS transport: the lease runner asks the executor as the agent does, before prepare.
        assumeTrue(Files.isExecutable(TestImages.BUSYBOX), "no static busybox at /bin/busybox");
        runner(1);
        baton.pushImage(TestImages.busybox(dir.resolve("new"), List.of("echo", "new"), List.of()), "bench", "pr");
        TestImages.Image baseline = TestImages.busybox(dir.resolve("old"), List.of("echo", "old"), List.of());
        baton.pushImage(baseline, "bench", "main");
        // Both sides have a command the process executor could run: only the baseline's image stands in the way.
        String uuid = baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "image",
                                "pr",
                                "cmd",
                                List.of("sh", "-c", "echo new"),
                                "baseline",
                                Map.of("image", "main", "cmd", List.of("sh", "-c", "echo old")),
                                "pairs",
                                2,
                                "timeout",
                                60))
                .at("/job/uuid")
                .asText();
        JsonNode done = awaitStatus(uuid, "failed", "processed");
        assertThat(done.get("status").asText()).as(done.toString()).isEqualTo("failed");
        // The lease's summary: nothing of the job ran (a decline is a failure on this transport, runner.md).
        assertThat(done.toString())
                .contains("could not start: the process executor runs no second image")
                .contains(baseline.digest().value());
    }

    @Test
    void aFailingJobIsReportedFailedWithItsExitCode() {
        runner(1);
        String uuid = submit(List.of("sh", "-c", "echo broken >&2; exit 3"), 60);
        JsonNode failed = awaitStatus(uuid, "failed");
        assertThat(failed.get("error").asText()).contains("exited with code 3");
        assertThat(failed.at("/output/results/0/exit_code").asInt()).isEqualTo(3);
    }

    @Test
    void aCancelStopsTheWorkloadAndIsAcknowledged() throws Exception {
        runner(1);
        Path pids = dir.resolve("cancel-pids");
        String uuid = submit(recordingPid(pids, "exec sleep 300"), 600);
        awaitStatus(uuid, "running");
        await().atMost(WAIT).until(() -> !pids(pids).isEmpty());
        long pid = pids(pids).getFirst();
        baton.post("/v0/projects/bench/jobs/" + uuid + "/cancel", Map.of());
        await().atMost(WAIT).until(() -> !alive(pid));
        await().atMost(WAIT)
                .until(() -> job(uuid).at("/attempts/0/outcome").asText().equals("canceled"));
        assertThat(job(uuid).get("status").asText()).isEqualTo("canceled");
    }

    @Test
    void aStaleLeaseStopsTheWorkAndNothingIsReportedUnderIt() throws Exception {
        runner(1);
        Path pids = dir.resolve("stale-pids");
        String uuid = submitRetryingWhenLost(recordingPid(pids, "exec sleep 300"), 600);
        awaitStatus(uuid, "running");
        await().atMost(WAIT).until(() -> !pids(pids).isEmpty());
        long first = pids(pids).getFirst();

        // The server's time jumps past the lease: it expires the lease and (the job opted in) queues it again; the
        // runner's next heartbeat is answered StaleLease, and it must stop that very process.
        serverClock.shift(LEASE_TTL.plusSeconds(1));
        await().atMost(WAIT).until(() -> !alive(first));
        await().atMost(WAIT)
                .until(() -> job(uuid).get("attempts").size() == 2 && pids(pids).size() == 2);
        JsonNode now = job(uuid);
        assertThat(now.at("/attempts/0/outcome").asText())
                .as("the expired attempt stays lost: nothing said under its lease")
                .isEqualTo("lost");
        assertThat(now.get("status").asText()).isEqualTo("running");
        baton.post("/v0/projects/bench/jobs/" + uuid + "/cancel", Map.of());
        awaitStatus(uuid, "canceled");
    }

    @Test
    void anOfferRevokedBeforeTheRunnerCameIsNeverRun() throws Exception {
        Path pids = dir.resolve("revoked-pids");
        String uuid = submit(recordingPid(pids, "echo '{}'"), 60);
        // Offered with no runner up; the acceptance window passes on the server, which revokes the
        // offer and offers the job again under a new lease: the stream now holds both.
        await().atMost(WAIT).until(() -> baton.metric("baton_broker_leases_total{event=\"published\"}") >= 1);
        serverClock.shift(Duration.ofSeconds(31));
        await().atMost(WAIT).until(() -> baton.metric("baton_broker_leases_total{event=\"published\"}") >= 2);

        runner(1);
        JsonNode done = awaitStatus(uuid, "processed");
        assertThat(done.get("attempts"))
                .as("the revoked lease was never bound")
                .singleElement()
                .satisfies(a -> assertThat(a.get("outcome").asText()).isEqualTo("completed"));
        assertThat(pids(pids)).as("the job ran once").hasSize(1);
        assertThat(baton.metric("baton_broker_leases_total{event=\"stale\"}"))
                .as("the old offer was answered StaleLease")
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void aRunnerCutFromTheServerGivesTheOfferBackAndNeverRunsIt() throws Exception {
        try (CuttableProxy proxy = new CuttableProxy(baton.url());
                Connection broker = Nats.connect(nats.url())) {
            JetStreamManagement jsm = broker.jetStreamManagement();
            runner(1, proxy.url());
            Path partitionedWork = homes.getLast().resolve("work");
            // The runner learned where to pull through the proxy and is waiting on the broker; then
            // the server becomes unreachable for it, while the broker still reaches it.
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .until(() -> leaseConsumer(jsm).getNumWaiting() > 0);
            proxy.cut();

            Path pids = dir.resolve("partition-pids");
            String uuid = submit(recordingPid(pids, "echo '{}'"), 60);
            // It pulls the LeaseGranted, cannot AckLease, and gives the message back (-NAK): the
            // broker delivers the same offer again, and nobody ever acked it.
            await().atMost(WAIT).until(() -> leaseConsumer(jsm).getDelivered().getConsumerSequence() >= 3);
            ConsumerInfo given = leaseConsumer(jsm);
            assertThat(given.getRedelivered())
                    .as("the offer went back to the queue")
                    .isGreaterThanOrEqualTo(1);
            assertThat(given.getAckFloor().getConsumerSequence())
                    .as("never acked on the broker")
                    .isZero();
            assertThat(job(uuid).get("status").asText())
                    .as("never bound without AckLease")
                    .isEqualTo("pending");
            assertThat(pids(pids)).as("no process started without AckLease").isEmpty();
            assertThat(workEntries(partitionedWork))
                    .as("nothing prepared in the cut runner's work dir")
                    .isEmpty();

            runner(1);
            JsonNode done = awaitStatus(uuid, "processed");
            assertThat(done.get("attempts"))
                    .as("one attempt, by the runner that reached the server")
                    .singleElement()
                    .satisfies(a -> assertThat(a.get("outcome").asText()).isEqualTo("completed"));
            assertThat(pids(pids)).as("the job ran exactly once").hasSize(1);
            assertThat(workEntries(partitionedWork))
                    .as("the cut runner still started nothing")
                    .isEmpty();
        }
    }

    // ---- the Complete outbox -------------------------------------------------------------------------

    @Test
    void aCompleteTheServerCouldNotReceiveIsDeliveredOnceItIsBack() throws Exception {
        try (CuttableProxy proxy = new CuttableProxy(baton.url())) {
            runner(1, proxy.url());
            Path outbox = homes.getLast().resolve("outbox");
            Path go = dir.resolve("go-unreachable");
            Path pids = dir.resolve("unreachable-pids");
            String uuid = submit(recordingPid(pids, waitFor(go) + "echo '{\"r\":{\"t\":{\"value\":7}}}'"), 60);
            awaitStatus(uuid, "running");
            // The server's time stands still while it is unreachable, so the lease cannot expire:
            // this test is about the Complete's way to the server, not the lease.
            serverClock.freeze();
            proxy.cut();
            Files.createFile(go);
            await().atMost(WAIT).until(() -> leaseWords(outbox).size() == 1);
            assertThat(job(uuid).get("status").asText())
                    .as("nothing reached the server")
                    .isEqualTo("running");

            proxy.heal();
            JsonNode done = awaitStatus(uuid, "processed");
            assertThat(done.at("/output/results/0/stdout").asText()).contains("\"value\":7");
            assertThat(done.get("attempts"))
                    .as("one attempt, completed under its lease")
                    .singleElement()
                    .satisfies(a -> assertThat(a.get("outcome").asText()).isEqualTo("completed"));
            assertThat(pids(pids)).as("the job ran once").hasSize(1);
            await().atMost(WAIT).until(() -> leaseWords(outbox).isEmpty());
            serverClock.thaw();
        }
    }

    @Test
    void aCompleteLeftOnDiskByAStoppedRunnerIsDeliveredAtItsNextStartAndAppliedOnce() throws Exception {
        Path go = dir.resolve("go-restart");
        Path pids = dir.resolve("restart-pids");
        String slug;
        Path outbox;
        String uuid;
        try (CuttableProxy proxy = new CuttableProxy(baton.url())) {
            Future<Integer> first = runner(1, proxy.url());
            slug = homes.getLast().getFileName().toString();
            outbox = homes.getLast().resolve("outbox");
            uuid = submit(recordingPid(pids, waitFor(go) + "echo '{\"r\":{\"t\":{\"value\":8}}}'"), 60);
            awaitStatus(uuid, "running");
            serverClock.freeze(); // the lease stays valid while no runner of it is up
            proxy.cut();
            Files.createFile(go);
            await().atMost(WAIT).until(() -> leaseWords(outbox).size() == 1);
            last.signal(Input.Signal.TERMINATE);
            assertThat(first.get(40, TimeUnit.SECONDS)).isZero();
        }
        assertThat(leaseWords(outbox))
                .as("the undelivered Complete outlives the agent")
                .hasSize(1);
        assertThat(job(uuid).get("status").asText()).isEqualTo("running");

        runnerAs(slug, 1, baton.url()); // the same runner, restarted, reaching the server again
        JsonNode done = awaitStatus(uuid, "processed");
        assertThat(done.at("/output/results/0/stdout").asText()).contains("\"value\":8");
        assertThat(done.get("attempts"))
                .as("one attempt, completed under its lease")
                .singleElement()
                .satisfies(a -> assertThat(a.get("outcome").asText()).isEqualTo("completed"));
        assertThat(pids(pids)).as("the job ran once").hasSize(1);
        await().atMost(WAIT).until(() -> leaseWords(outbox).isEmpty());
        serverClock.thaw();
    }

    @Test
    void aCompleteLeftOnDiskPastItsLeaseIsAnsweredStaleAndTheJobRunsAgain() throws Exception {
        Path go = dir.resolve("go-expired");
        Path pids = dir.resolve("expired-pids");
        String slug;
        Path outbox;
        String uuid;
        try (CuttableProxy proxy = new CuttableProxy(baton.url())) {
            Future<Integer> first = runner(1, proxy.url());
            slug = homes.getLast().getFileName().toString();
            outbox = homes.getLast().resolve("outbox");
            uuid = submitRetryingWhenLost(recordingPid(pids, waitFor(go) + "echo '{\"r\":{\"t\":{\"value\":9}}}'"), 60);
            awaitStatus(uuid, "running");
            proxy.cut();
            Files.createFile(go);
            await().atMost(WAIT).until(() -> leaseWords(outbox).size() == 1);
            last.signal(Input.Signal.TERMINATE);
            assertThat(first.get(40, TimeUnit.SECONDS)).isZero();
        }
        // The runner stays away longer than the lease: the server expires it and (the job opted in) queues the job
        // again.
        serverClock.shift(LEASE_TTL.plusSeconds(1));
        await().atMost(WAIT)
                .until(() -> job(uuid).at("/attempts/0/outcome").asText().equals("lost"));
        double staleBefore = baton.metric("baton_broker_leases_total{event=\"stale\"}");

        runnerAs(slug, 1, baton.url());
        await().atMost(WAIT).until(() -> leaseWords(outbox).isEmpty());
        JsonNode done = awaitStatus(uuid, "processed");
        assertThat(baton.metric("baton_broker_leases_total{event=\"stale\"}"))
                .as("the late Complete was answered StaleLease")
                .isGreaterThan(staleBefore);
        assertThat(done.at("/attempts/0/outcome").asText())
                .as("the expired attempt stays lost: its late Complete changed nothing")
                .isEqualTo("lost");
        assertThat(done.at("/attempts/1/outcome").asText()).isEqualTo("completed");
        assertThat(done.get("attempts")).hasSize(2);
        assertThat(pids(pids)).as("the new attempt ran the job again").hasSize(2);
    }

    /** A shell fragment that waits until {@code file} exists (the test says when the job may end). */
    static String waitFor(Path file) {
        return "while [ ! -e " + file + " ]; do sleep 0.1; done; ";
    }

    /** The final words waiting in a lease runner's outbox. */
    static List<Path> leaseWords(Path outbox) throws Exception {
        if (!Files.exists(outbox)) return List.of();
        try (var entries = Files.list(outbox)) {
            return entries.filter(p -> p.getFileName().toString().endsWith(".lease.json"))
                    .toList();
        }
    }

    private static ConsumerInfo leaseConsumer(JetStreamManagement jsm) throws Exception {
        return jsm.getConsumerInfo("BATON_LEASES", "baton-host");
    }

    private static List<Path> workEntries(Path work) throws Exception {
        if (!Files.exists(work)) return List.of();
        try (var entries = Files.list(work)) {
            return entries.toList();
        }
    }

    /** The server's clock, which a test moves ahead or stops; the runner keeps real time. */
    static final class ShiftedClock extends Clock {
        private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);
        private final AtomicReference<Instant> frozen = new AtomicReference<>();

        void shift(Duration by) {
            offset.updateAndGet(o -> o.plus(by));
            Instant f = frozen.get();
            if (f != null) frozen.set(f.plus(by));
        }

        /** Stops the server's time (no lease can expire meanwhile) until {@link #thaw}. */
        synchronized void freeze() {
            frozen.compareAndSet(null, instant());
        }

        /** Time goes on from where it stopped. */
        synchronized void thaw() {
            Instant f = frozen.getAndSet(null);
            if (f != null) offset.set(Duration.between(Instant.now(), f));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            Instant f = frozen.get();
            return f != null ? f : Instant.now().plus(offset.get());
        }
    }
}
