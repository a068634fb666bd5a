package dev.baton.dispatch.channel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.server.testing.ChannelFixture;
import dev.baton.server.testing.ChannelFixture.RunnerHandle;
import dev.baton.server.testing.TestRunner;
import dev.baton.store.Job;
import dev.baton.store.JobLabels;
import dev.baton.store.Spec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19's label routing over real WebSockets and a real store, once per dialect: the claim
 * query honours required labels (admin-set and runner-reported, the admin's winning), takes jobs
 * whose preferred labels the runner has first, and a job no runner's labels satisfy says so.
 */
abstract class LabelRoutingContractTest {
    private static final Duration SHORT = Duration.ofMillis(200);

    @TempDir
    Path dataDir;

    ChannelFixture server;
    Spec spec;
    final List<TestRunner> connections = new ArrayList<>();

    abstract String databaseUrl(Path dataDir);

    @BeforeEach
    void start() {
        server = new ChannelFixture(databaseUrl(dataDir), dataDir);
        spec = server.spec("bare metal");
    }

    @AfterEach
    void stop() {
        connections.forEach(TestRunner::crash);
        server.close();
    }

    private TestRunner connect(RunnerHandle handle) {
        TestRunner r = server.connect(handle);
        connections.add(r);
        return r;
    }

    private static RunnerMessage.Ready ready(Map<String, String> labels) {
        return new RunnerMessage.Ready(600, "linux", "x86_64", "test", 1, null, null, null, labels);
    }

    private static JobLabels requires(String key, String value) {
        return new JobLabels(Map.of(key, value), Map.of());
    }

    private String reason(Job job) {
        return server.channel()
                .status(server.store.runs().findJob(job.uuid()).orElseThrow())
                .orElseThrow()
                .reason()
                .code();
    }

    @Test
    void aJobThatRequiresLabelsGoesOnlyToARunnerThatHasThemAll() {
        RunnerHandle plain = server.runner(spec);
        RunnerHandle fast = server.runner(spec);
        server.store
                .runners()
                .setRunnerLabels(
                        fast.runner().id(), true, Map.of("disk", "nvme", "kernel", "6.8"), server.clock.instant());
        Job job = server.submit(spec, new JobLabels(Map.of("disk", "nvme", "kernel", "6.8"), Map.of()));

        TestRunner p = connect(plain);
        p.send(ready(null));
        p.expectSilence(SHORT);
        assertThat(reason(job)).isEqualTo("runners_offline"); // the runner that has the labels is not connected

        TestRunner f = connect(fast);
        f.send(ready(null));
        assertThat(f.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
        // A job without labels still goes to the plain runner that waits.
        Job any = server.submit(spec);
        assertThat(p.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(any.uuid());
    }

    @Test
    void aJobNoRunnersLabelsSatisfySaysSoUntilARunnerIsLabelled() {
        RunnerHandle handle = server.runner(spec);
        TestRunner runner = connect(handle);
        Job job = server.submit(spec, requires("gpu", "a100"));
        runner.send(ready(null));
        runner.expectSilence(SHORT);
        var status = server.channel()
                .status(server.store.runs().findJob(job.uuid()).orElseThrow())
                .orElseThrow();
        assertThat(status.reason().code()).isEqualTo("labels_unmatched");
        assertThat(status.reason().message()).contains("gpu=a100");

        server.store
                .runners()
                .setRunnerLabels(handle.runner().id(), true, Map.of("gpu", "a100"), server.clock.instant());
        assertThat(reason(job)).isNotEqualTo("labels_unmatched");
        // The runner asks again (its next ready) and takes it.
        TestRunner again = connect(handle);
        again.send(ready(null));
        assertThat(again.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(job.uuid());
    }

    @Test
    void labelsTheRunnerReportsCountAndTheAdminsWin() {
        RunnerHandle handle = server.runner(spec);
        TestRunner runner = connect(handle);
        runner.send(ready(Map.of("kernel", "6.8", "arch-level", "v3")));
        runner.expectSilence(SHORT);
        assertThat(server.store.runners().runnerLabels(handle.runner().id()).reported())
                .isEqualTo(Map.of("kernel", "6.8", "arch-level", "v3"));
        Job job = server.submit(spec, requires("kernel", "6.8"));
        ClaimedJob claimed = runner.expect(ServerMessage.Job.class).job();
        assertThat(claimed.uuid()).isEqualTo(job.uuid());
        runner.send(new RunnerMessage.Declined(claimed.uuid(), claimed.lease(), "shutting down"));
        runner.expect(ServerMessage.Ack.class);

        // The admin says otherwise: kernel=6.1 hides the reported 6.8.
        server.store
                .runners()
                .setRunnerLabels(handle.runner().id(), true, Map.of("kernel", "6.1"), server.clock.instant());
        assertThat(server.store.runners().runnerLabels(handle.runner().id()).effective())
                .containsEntry("kernel", "6.1");
        Job other = server.submit(spec, requires("kernel", "6.8"));
        runner.send(ready(Map.of("kernel", "6.8", "arch-level", "v3")));
        runner.expectSilence(SHORT);
        assertThat(reason(other)).isEqualTo("labels_unmatched");
        Job old = server.submit(spec, requires("kernel", "6.1"));
        assertThat(runner.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(old.uuid());
    }

    @Test
    void aRunnerTakesJobsThatPreferItsLabelsFirstButNeverLeavesOthersWaiting() {
        RunnerHandle zoned = server.runner(spec);
        RunnerHandle plain = server.runner(spec);
        server.store.runners().setRunnerLabels(zoned.runner().id(), true, Map.of("zone", "a"), server.clock.instant());
        Job older = server.submit(spec);
        server.clock.advance(Duration.ofSeconds(1));
        Job preferring = server.submit(spec, new JobLabels(Map.of(), Map.of("zone", "a")));

        TestRunner z = connect(zoned);
        z.send(ready(null));
        assertThat(z.expect(ServerMessage.Job.class).job().uuid())
                .as("the job that prefers its zone")
                .isEqualTo(preferring.uuid());
        TestRunner p = connect(plain);
        p.send(ready(null));
        assertThat(p.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(older.uuid());

        // A preference only orders: with no runner of that zone free, a plain runner takes it.
        Job alone = server.submit(spec, new JobLabels(Map.of(), Map.of("zone", "b")));
        TestRunner p2 = connect(server.runner(spec));
        p2.send(ready(null));
        assertThat(p2.expect(ServerMessage.Job.class).job().uuid()).isEqualTo(alone.uuid());
    }

    @Test
    void malformedLabelsInReadyAreAnInvalidMessageAndChangeNothing() {
        RunnerHandle handle = server.runner(spec);
        TestRunner runner = connect(handle);
        runner.sendRaw("{\"event\":\"ready\",\"poll_timeout\":600,\"labels\":{\"bad key\":\"x\"}}");
        assertThat(runner.expect(ServerMessage.Error.class).code()).isEqualTo("invalid_message");
        assertThat(server.store.runners().runnerLabels(handle.runner().id()).reported())
                .isEmpty();
    }
}
