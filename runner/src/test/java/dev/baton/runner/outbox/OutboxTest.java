package dev.baton.runner.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.FinalLeaseMessage;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.runner.machine.Effect;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutboxTest {
    @TempDir
    Path dir;

    @Test
    void resultsSurviveAReopenUntilDeleted() {
        JobUuid job = JobUuid.random();
        LeaseId lease = LeaseId.random();
        var failed = new RunnerMessage.Failed(
                job, lease, List.of(new IterationResult(1, "o", "e", Map.of("out.txt", "x"))), "boom");
        Outbox outbox = new Outbox(dir);
        outbox.writeResult(failed, 0);
        outbox.writeResult(failed, 2);

        Map<RunnerMessage.Terminal, Integer> reopened = new Outbox(dir).results();
        assertThat(reopened).containsExactly(Map.entry(failed, 2));
        // the lease is stored (it is needed to resend) although it never prints
        assertThat(((RunnerMessage.Failed) reopened.keySet().iterator().next())
                        .lease()
                        .matches(lease))
                .isTrue();
        assertThat(dir.resolve(job + ".result.json.tmp")).doesNotExist();

        outbox.deleteResult(job);
        assertThat(new Outbox(dir).results()).isEmpty();
    }

    @Test
    void theOutboxIsPrivateToTheAgentsUser() throws Exception {
        Path box = new Outbox(dir.resolve("box")).directory();
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(box)))
                .isEqualTo("rwx------");
    }

    @Test
    void inflightRecordsRoundTrip() {
        Outbox outbox = new Outbox(dir);
        var a = new InflightRecord(JobUuid.random(), LeaseId.random(), null);
        var b = new InflightRecord(JobUuid.random(), LeaseId.random(), Instant.parse("2026-01-01T00:00:01Z"));
        outbox.writeInflight(a);
        outbox.writeInflight(b);
        assertThat(new Outbox(dir).inflight()).containsExactlyInAnyOrder(a, b);
        outbox.deleteInflight(a.job());
        assertThat(new Outbox(dir).inflight()).containsExactly(b);
    }

    @Test
    void corruptEntriesAreMovedAsideNotFatal() throws Exception {
        Files.writeString(dir.resolve(JobUuid.random() + ".result.json"), "{not json");
        assertThat(new Outbox(dir).results()).isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .singleElement()
                    .asString()
                    .endsWith(".corrupt");
        }
    }

    @Test
    void leaseWordsSurviveAReopenPerAttemptUntilDeleted() throws Exception {
        String job = JobUuid.random().toString();
        var first = new FinalLeaseMessage(
                job, 1, "complete", Wire.mapper().readTree("{\"type\":\"Complete\",\"lease_id\":\"a\"}"), 0);
        var second = new FinalLeaseMessage(
                job, 2, "cancel-ack", Wire.mapper().readTree("{\"type\":\"CancelAck\",\"lease_id\":\"b\"}"), 0);
        Outbox outbox = new Outbox(dir);
        outbox.writeFinalLeaseMessage(first);
        outbox.writeFinalLeaseMessage(second);
        outbox.writeFinalLeaseMessage(first.withRefusals(3));
        // Results of the runner channel are another kind: neither sees the other's entries.
        assertThat(new Outbox(dir).results()).isEmpty();
        assertThat(new Outbox(dir).leaseWords()).containsExactlyInAnyOrder(first.withRefusals(3), second);

        outbox.deleteFinalLeaseMessage(first);
        assertThat(new Outbox(dir).leaseWords()).containsExactly(second);
    }

    @Test
    void corruptFinalLeaseMessagesAreMovedAsideNotFatal() throws Exception {
        Files.writeString(dir.resolve(JobUuid.random() + ".1.lease.json"), "{not json");
        // A readable entry whose name is not its own attempt's (copied by hand, say) is not trusted either.
        Files.writeString(
                dir.resolve(JobUuid.random() + ".1.lease.json"),
                "{\"job\":\"x\",\"attempt\":1,\"path\":\"complete\",\"message\":{}}");
        assertThat(new Outbox(dir).leaseWords()).isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).hasSize(2).allMatch(n -> n.endsWith(".corrupt"));
        }
    }

    /** A runner restarted mid-job: the machine, fed from the outbox, reports the job as failed. */
    @Test
    void restartedMidJobReportsFailedFromDisk() {
        Outbox outbox = new Outbox(dir);
        var record = new InflightRecord(JobUuid.random(), LeaseId.random(), Instant.parse("2026-01-01T00:00:01Z"));
        outbox.writeInflight(record);

        Outbox reopened = new Outbox(dir);
        RunnerMachine machine =
                new RunnerMachine(MachineConfig.defaults("t"), new Random(1), reopened.results(), reopened.inflight());
        for (Effect e : machine.handle(new Input.Start(Instant.EPOCH))) {
            switch (e) {
                case Effect.WriteOutbox w -> reopened.writeResult(w.message(), w.attempts());
                case Effect.DeleteInflight d -> reopened.deleteInflight(d.job());
                default -> {}
            }
        }
        assertThat(new Outbox(dir).inflight()).isEmpty();
        assertThat(new Outbox(dir).results().keySet())
                .singleElement()
                .isInstanceOfSatisfying(RunnerMessage.Failed.class, f -> {
                    assertThat(f.job()).isEqualTo(record.job());
                    assertThat(f.error()).isEqualTo("runner restarted during execution");
                });
    }
}
