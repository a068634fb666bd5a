package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.adapter.Adapters;
import dev.baton.core.events.Changes;
import dev.baton.core.metrics.BatonMetrics;
import dev.baton.dispatch.output.ObjectOutputStore;
import dev.baton.dispatch.output.ResultProcessor;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import dev.baton.store.TestClaims;
import dev.baton.store.blob.FileObjects;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The final word of an attempt whose lease moved on while this node did not know (another node
 * found this one dead and ran the job again as attempt 2) changes nothing: not the state, and
 * not the output, log or report of the attempt the job accepted — whether it arrives before that
 * attempt's own final word or after it. The other node's part is played on the shared store and
 * blob storage directly, unannounced, as a node that was frozen would have missed it; this node
 * still holds attempt 1 in memory, so its runner's word takes the path it took after a SIGCONT.
 * Runs once per database dialect (the subclasses).
 */
abstract class LateFinalMessageContract {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    TestRunner alice;

    abstract String databaseUrl(Path dataDir);

    /** The words a runner may end an attempt with. */
    enum Word {
        COMPLETED,
        FAILED,
        CANCELED;

        RunnerMessage message(ClaimedJob job) {
            List<IterationResult> results = List.of(new IterationResult(
                    0, "{\"stale\":{\"latency\":{\"value\":99.0}}}", "stale stderr", Map.of("r.json", "stale")));
            return switch (this) {
                case COMPLETED -> new RunnerMessage.Completed(job.uuid(), job.lease(), results);
                case FAILED -> new RunnerMessage.Failed(job.uuid(), job.lease(), results, "exit code 3");
                case CANCELED -> new RunnerMessage.Canceled(job.uuid(), job.lease(), results);
            };
        }
    }

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("x86 small");
        alice = server.connect(server.runner(spec));
    }

    @AfterEach
    void stop() {
        alice.crash();
        server.close();
    }

    @ParameterizedTest
    @EnumSource(Word.class)
    void aLateWordAfterTheCurrentAttemptCompletedLeavesItsOutputAndReportByteForByte(Word word) throws Exception {
        Job job = server.submit(spec, new RetryPolicy(2, 0, true));
        ClaimedJob first = runningFirstAttempt();
        LeaseId second = moveTheLease(job, first);
        completeElsewhere(job, second);
        Snapshot accepted = snapshot(job);

        alice.send(word.message(first));
        assertThat(alice.expect(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());

        assertThat(snapshot(job)).isEqualTo(accepted);
        assertThat(objects().exists(ObjectOutputStore.key(server.project.uuid(), job.uuid(), 1)))
                .as("attempt 1 keeps nothing")
                .isFalse();
        assertThat(server.outputs.get(server.project.uuid(), job.uuid(), 1))
                .as("not on its row either")
                .isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Word.class)
    void aLateWordBeforeTheCurrentAttemptCompletedLeavesItsOutputAndReportAsThatAttemptStoredThem(Word word)
            throws Exception {
        Job job = server.submit(spec, new RetryPolicy(2, 0, true));
        ClaimedJob first = runningFirstAttempt();
        LeaseId second = moveTheLease(job, first);

        alice.send(word.message(first));
        assertThat(alice.expect(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());
        assertThat(server.job(job).status()).isEqualTo(JobStatus.RUNNING);

        completeElsewhere(job, second);
        Snapshot accepted = snapshot(job);
        assertThat(accepted.status()).isEqualTo(JobStatus.PROCESSED);
        assertThat(accepted.output()).isEqualTo(json(elsewhereOutput()));
        assertThat(objects().exists(ObjectOutputStore.key(server.project.uuid(), job.uuid(), 1)))
                .as("attempt 1 keeps nothing")
                .isFalse();
        assertThat(server.outputs.get(server.project.uuid(), job.uuid(), 1))
                .as("not on its row either")
                .isEmpty();
    }

    /**
     * The current attempt failed for good without output (the other node timed it out): a late
     * {@code failed} of the earlier attempt must not become the job's account of its failure.
     */
    @ParameterizedTest
    @EnumSource(Word.class)
    void aLateWordDoesNotGiveAJobThatFailedWithoutOutputTheEarlierAttemptsOutput(Word word) throws Exception {
        Job job = server.submit(spec, new RetryPolicy(2, 0, true));
        ClaimedJob first = runningFirstAttempt();
        LeaseId second = moveTheLease(job, first);
        assertThat(server.store
                        .transitions()
                        .fail(
                                job.uuid(),
                                second,
                                "lost contact with the runner",
                                AttemptOutcome.LOST,
                                server.clock.instant())
                        .applied())
                .isTrue();
        assertThat(server.job(job).status()).isEqualTo(JobStatus.FAILED);

        alice.send(word.message(first));
        assertThat(alice.expect(ServerMessage.Stale.class).job()).isEqualTo(job.uuid());

        Job after = server.job(job);
        assertThat(after.status()).isEqualTo(JobStatus.FAILED);
        assertThat(server.outputs.get(server.project.uuid(), job.uuid(), after.attempt()))
                .as("output of the failed attempt 2")
                .isEmpty();
    }

    // ---- the steps --------------------------------------------------------------------------------

    private ClaimedJob runningFirstAttempt() {
        alice.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = alice.expect(ServerMessage.Job.class).job();
        alice.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        alice.expect(ServerMessage.Ack.class);
        assertThat(claimed.attempt()).isEqualTo(1);
        return claimed;
    }

    /** Another node's sweep gives attempt 1 up (its node looked dead) and another runner claims and starts attempt 2. */
    private LeaseId moveTheLease(Job job, ClaimedJob first) {
        assertThat(server.store
                        .transitions()
                        .fail(
                                job.uuid(),
                                first.lease(),
                                "lost contact with the runner",
                                AttemptOutcome.LOST,
                                server.clock.instant())
                        .applied())
                .isTrue();
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
        LeaseId second = LeaseId.random();
        Optional<Job> claimed =
                TestClaims.claim(server.store, server.runner(spec).runner().id(), second, server.clock.instant());
        assertThat(claimed).map(Job::attempt).contains(2);
        assertThat(server.store
                        .transitions()
                        .start(job.uuid(), second, server.clock.instant())
                        .applied())
                .isTrue();
        return second;
    }

    private static JobOutput elsewhereOutput() {
        return new JobOutput(
                List.of(new IterationResult(
                        0,
                        "{\"bench\":{\"latency\":{\"value\":2.5}}}",
                        "accepted stderr",
                        Map.of("r.json", "accepted"))),
                null);
    }

    /** The other node stores attempt 2's output under its attempt, completes it and parses it into the report. */
    private void completeElsewhere(Job job, LeaseId second) {
        server.outputs.put(server.project.uuid(), job.uuid(), 2, elsewhereOutput());
        assertThat(server.store
                        .transitions()
                        .complete(job.uuid(), second, server.clock.instant())
                        .applied())
                .isTrue();
        new ResultProcessor(
                        server.store, server.outputs, new Adapters(), new BatonMetrics(), server.clock, new Changes())
                .process(server.job(job));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PROCESSED);
    }

    private FileObjects objects() {
        return new FileObjects(dataDir.resolve("storage"));
    }

    /** What a reader sees of the job: its state, the stored output as the API reads it (also the log's source), and the report's results. */
    record Snapshot(JobStatus status, int attempt, String output, String results, String reportError) {}

    private Snapshot snapshot(Job job) throws Exception {
        Job now = server.job(job);
        var output = server.outputs.get(server.project.uuid(), job.uuid(), now.attempt());
        var report = server.store.runs().findReport(now.reportId()).orElseThrow();
        return new Snapshot(
                now.status(),
                now.attempt(),
                output.isEmpty() ? null : json(output.get()),
                report.results(),
                report.error());
    }

    /** The output as the output store writes it (JSON). */
    private static String json(JobOutput o) throws java.io.IOException {
        return dev.baton.protocol.message.Wire.mapper().writeValueAsString(o);
    }
}
