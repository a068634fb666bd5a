package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.job.PlanTier;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Job;
import dev.baton.store.Organization;
import dev.baton.store.RetryPolicy;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the server does for a router (docs/protocol.md, "Routers"): a {@code ready} narrowed to some
 * specs, a {@code ready} that prefers projects, a changed {@code ready} replacing the wait, and a
 * {@code failed} that says the runner behind the router was lost. Once per dialect.
 */
abstract class RouterReadyContractTest {
    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec small;
    Spec large;
    RunnerHandle router;
    TestRunner channel;

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        small = server.spec("small");
        large = server.spec("large");
        router = server.runner(small, large);
        channel = server.connect(router);
        channel.welcome();
    }

    @AfterEach
    void stop() {
        channel.crash();
        server.close();
    }

    private static RunnerMessage.Ready ready(List<String> specs, List<dev.baton.protocol.id.ProjectUuid> prefer) {
        return new RunnerMessage.Ready(30, "linux", "x86_64", "router", 1, specs, prefer);
    }

    @Test
    void aReadyNarrowedToSpecsClaimsOnlyThoseAndAChangedReadyReplacesTheWait() {
        Job job = server.submit(small);
        channel.send(ready(List.of("large"), null));
        channel.expectSilence(Duration.ofMillis(300));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);

        channel.send(ready(List.of("small", "large"), null));
        assertThat(channel.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    @Test
    void aReadyNarrowedToNoSpecsWithdrawsTheWait() {
        channel.send(ready(List.of("small"), null));
        channel.send(ready(List.of(), null));
        // the server has read both readies (it answers messages in order) before the job exists
        channel.send(new RunnerMessage.Heartbeat(null, null));
        channel.expect(ServerMessage.Ack.class);
        Job job = server.submit(small);
        channel.expectSilence(Duration.ofMillis(300));
        assertThat(server.job(job).status()).isEqualTo(JobStatus.PENDING);
    }

    @Test
    void aRepeatedIdenticalNarrowedReadyChangesNothing() {
        channel.send(ready(List.of("large"), null));
        channel.send(ready(List.of("large"), null));
        channel.expectSilence(Duration.ofMillis(300));
        Job job = server.submit(large);
        assertThat(channel.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        channel.expectSilence(Duration.ofMillis(200));
    }

    @Test
    void preferredProjectsAreClaimedFirstThenTheRest() {
        Organization team = server.organization(PlanTier.TEAM);
        Job older = server.submit(small, team, "192.0.2.7", 600, List.of());
        Job newer = server.submit(small, team, "192.0.2.7", 600, List.of());
        var newerProject = server.store
                .organizations()
                .findProject(newer.projectId())
                .orElseThrow()
                .uuid();

        channel.send(ready(null, List.of(newerProject)));
        assertThat(channel.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(newer.uuid());
        channel.send(ready(null, List.of(newerProject)));
        assertThat(channel.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(older.uuid());
    }

    @Test
    void aFailedThatSaysTheRunnerWasLostIsALostAttempt() {
        Job retried = server.submit(small, new RetryPolicy(2, 0, true));
        ClaimedJob first = claimAndStart();
        channel.send(new RunnerMessage.Failed(
                first.uuid(), first.lease(), List.of(), "runner r1 behind the router was lost", true));
        channel.expect(ServerMessage.Ack.class);
        assertThat(server.job(retried).status()).isEqualTo(JobStatus.PENDING);
        assertThat(server.store
                        .runs()
                        .attempts(server.job(retried).id())
                        .getFirst()
                        .outcome())
                .isEqualTo(AttemptOutcome.LOST);

        // Two attempts allowed but not for a lost runner: a plain failed would retry, a lost one does not.
        ClaimedJob again = claimAndStart();
        assertThat(again.uuid()).isEqualTo(retried.uuid());
        channel.send(new RunnerMessage.Completed(again.uuid(), again.lease(), List.of()));
        channel.expect(ServerMessage.Ack.class);
        Job notForLost = server.submit(small, new RetryPolicy(2, 0, false));
        ClaimedJob claimed = claimAndStart();
        assertThat(claimed.uuid()).isEqualTo(notForLost.uuid());
        channel.send(new RunnerMessage.Failed(claimed.uuid(), claimed.lease(), List.of(), "lost", true));
        channel.expect(ServerMessage.Ack.class);
        assertThat(server.job(notForLost).status()).isEqualTo(JobStatus.FAILED);
    }

    private ClaimedJob claimAndStart() {
        channel.send(new RunnerMessage.Ready(30, "linux", "x86_64", "router", 1));
        ClaimedJob claimed = channel.expect(ServerMessage.Job.class).job();
        channel.send(new RunnerMessage.Running(claimed.uuid(), claimed.lease()));
        channel.expect(ServerMessage.Ack.class);
        return claimed;
    }
}
