package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.dispatch.output.AttemptOutputs;
import dev.baton.dispatch.output.ObjectOutputStore;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.Spec;
import dev.baton.store.blob.FileObjects;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a final word's output is kept (docs/decisions/0034-small-output-on-the-attempt.md): up to
 * {@link AttemptOutputs#ON_THE_ATTEMPT_MAX_BYTES} encoded on the attempt's row, written by the
 * transition that ends the attempt, with no file in the blob storage; larger in the blob storage.
 * Either way a reader gets the output the runner sent. Runs once per database dialect.
 */
abstract class AttemptOutputContract {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    TestRunner alice;

    abstract String databaseUrl(Path dataDir);

    @AfterEach
    void stop() {
        if (alice != null) alice.crash();
        if (server != null) server.close();
    }

    @Test
    void aSmallCompletedOutputIsKeptOnItsAttemptAndNoFileIsWritten() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        Spec spec = server.spec("x86 small");
        alice = server.connect(server.runner(spec));
        Job job = server.submit(spec);
        ClaimedJob claimed = running();
        JobOutput sent = new JobOutput(
                List.of(new IterationResult(0, "{\"bench\":{\"latency\":{\"value\":1.5}}}", "", Map.of())), null);

        alice.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), sent.results()));
        alice.expect(ServerMessage.Ack.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> server.job(job).status() == JobStatus.PROCESSED);

        assertThat(server.store.runs().attemptOutput(job.uuid(), 1))
                .as("on the attempt's row")
                .isPresent();
        assertThat(server.outputs.get(server.project.uuid(), job.uuid(), 1)).contains(sent);
        assertThat(blobExists(job, 1)).as("no file in the blob storage").isFalse();
        assertThat(server.store.runs().findReport(job.reportId()).orElseThrow().results())
                .as("parsed from it")
                .contains("latency");
    }

    @Test
    void aSmallFailedOutputIsKeptOnItsAttemptWithTheError() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        Spec spec = server.spec("x86 small");
        alice = server.connect(server.runner(spec));
        Job job = server.submit(spec);
        ClaimedJob claimed = running();
        List<IterationResult> results = List.of(new IterationResult(3, "partial", "boom", Map.of()));

        alice.send(new RunnerMessage.Failed(claimed.uuid(), claimed.lease(), results, "exit code 3"));
        alice.expect(ServerMessage.Ack.class);

        assertThat(server.job(job).status()).isEqualTo(JobStatus.FAILED);
        assertThat(server.store.runs().attemptOutput(job.uuid(), 1)).isPresent();
        assertThat(server.outputs.get(server.project.uuid(), job.uuid(), 1))
                .contains(new JobOutput(results, "exit code 3"));
        assertThat(blobExists(job, 1)).isFalse();
    }

    @Test
    void anOutputOverTheLimitIsAFileInTheBlobStorageAndNotOnTheRow() {
        server = new ChannelFixture(
                databaseUrl(dataDir),
                dataDir,
                c -> c.toBuilder().requestBodyMaxBytes(1 << 20).build());
        Spec spec = server.spec("x86 small");
        alice = server.connect(server.runner(spec));
        Job job = server.submit(spec);
        ClaimedJob claimed = running();
        String stdout = "x".repeat(AttemptOutputs.ON_THE_ATTEMPT_MAX_BYTES);
        JobOutput sent = new JobOutput(List.of(new IterationResult(0, stdout, "", Map.of())), null);

        alice.send(new RunnerMessage.Completed(claimed.uuid(), claimed.lease(), sent.results()));
        alice.expect(ServerMessage.Ack.class);

        assertThat(server.job(job).status()).isIn(JobStatus.COMPLETED, JobStatus.PROCESSED);
        assertThat(server.store.runs().attemptOutput(job.uuid(), 1))
                .as("too large for the row")
                .isEmpty();
        assertThat(blobExists(job, 1)).isTrue();
        assertThat(server.outputs.get(server.project.uuid(), job.uuid(), 1)).contains(sent);
    }

    private ClaimedJob running() {
        alice.send(new RunnerMessage.Ready(30, "linux", "x86_64", "test", 1));
        ClaimedJob claimed = alice.expect(ServerMessage.Job.class).job();
        alice.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        alice.expect(ServerMessage.Ack.class);
        return claimed;
    }

    private boolean blobExists(Job job, int attempt) {
        return new FileObjects(dataDir.resolve("storage"))
                .exists(ObjectOutputStore.key(server.project.uuid(), job.uuid(), attempt));
    }
}
