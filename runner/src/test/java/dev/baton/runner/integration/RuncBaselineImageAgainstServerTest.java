package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.connection.ChannelClient;
import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.executor.Execution;
import dev.baton.runner.executor.ExecutionEvents;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.oci.RegistryBlobSource;
import dev.baton.runner.testing.TarWriter;
import dev.baton.runner.testing.TestImages;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A paired run with a baseline image (issue 45) from submission to execution: two busybox images
 * pushed to the real server's registry under tags, {@code POST /v0/run} naming both by tag, and
 * the real runc executor preparing both from the registry with the one pull token the claim
 * carries, then running each side in its own image. Skipped where runc cannot run.
 */
@Tag("container")
class RuncBaselineImageAgainstServerTest {
    private static final String PRINT = "echo \"$0 $(cat /etc/flavour) $BATON_SIDE\"";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final BlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void bothImagesComeFromTheRegistryWithTheJobsTokenAndEachSideRunsInItsOwn() throws Exception {
        Optional<String> unavailable = RuncExecutor.unavailableReason("runc");
        assumeTrue(unavailable.isEmpty(), () -> "runc tests skipped: " + unavailable.orElse(""));
        assumeTrue(Files.isExecutable(TestImages.BUSYBOX), "no static busybox at /bin/busybox");
        // Not @TempDir (mode 700): a user-namespaced root must be able to reach the bundle.
        Path dir = Files.createTempDirectory(
                Path.of("/tmp"),
                "baton-baseline-image",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        try (BatonUnderTest baton = new BatonUnderTest(dir.resolve("server"))) {
            baton.benchProject();
            baton.spec("x86", "x86_64");
            BatonUnderTest.Registered created = baton.runner("runc-box", "x86");
            String slug = created.slug();
            TestImages.Image candidate = TestImages.busybox(
                    dir.resolve("new"), List.of("sh", "-c", PRINT, "new-cmd"), List.of(flavour("new")));
            TestImages.Image baseline = TestImages.busybox(
                    dir.resolve("old"), List.of("sh", "-c", PRINT, "old-cmd"), List.of(flavour("old")));
            baton.pushImage(candidate, "bench", "pr");
            baton.pushImage(baseline, "bench", "main");
            baton.post(
                    "/v0/run",
                    Map.of(
                            "project",
                            "bench",
                            "spec",
                            "x86",
                            "image",
                            "pr",
                            "baseline",
                            Map.of("image", "main"),
                            "pairs",
                            3));

            ChannelClient channel =
                    new ChannelClient(http, baton.url(), slug, created.key(), 1 << 20, inputs::add, Clock.systemUTC());
            channel.connect();
            next(Input.ConnectionOpened.class);
            channel.send(RuncReady.ready());
            ClaimedJob claimed = received(ServerMessage.Job.class).job();
            assertThat(claimed.config().digest()).isEqualTo(candidate.digest());
            assertThat(claimed.config().paired().baselineImage()).isEqualTo(baseline.digest());

            RuncExecutor executor = new RuncExecutor(
                    new RuncExecutor.Options(
                            "runc",
                            dir.resolve("runner"),
                            Architecture.X86_64,
                            true,
                            100_000,
                            256,
                            Optional.empty(),
                            OutputLimits.DEFAULT,
                            job -> new RegistryBlobSource(
                                    http,
                                    job.config().registry(),
                                    job.config().project().toString(),
                                    job.ociToken())),
                    Clock.systemUTC());
            ExecutionResult result = execute(executor, claimed);

            assertThat(result.kind()).isEqualTo(ExecutionResult.Kind.EXITED);
            assertThat(result.results()).hasSize(6);
            PairedConfig paired = claimed.config().paired();
            for (int i = 0; i < 6; i++) {
                assertThat(result.results().get(i).stdout())
                        .as("iteration %d", i)
                        .isEqualTo(
                                paired.side(i) == PairedConfig.Side.BASELINE
                                        ? "old-cmd old baseline\n"
                                        : "new-cmd new candidate\n");
            }
            channel.close();
        } finally {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    private static byte[] flavour(String text) {
        return new TarWriter().dir("etc", 0755).file("etc/flavour", text + "\n").tarGz();
    }

    private static ExecutionResult execute(RuncExecutor executor, ClaimedJob job) throws Exception {
        CompletableFuture<ExecutionResult> finished = new CompletableFuture<>();
        CompletableFuture<Execution> execution = new CompletableFuture<>();
        execution.complete(executor.prepare(job, new ExecutionEvents() {
            @Override
            public void progress(String message) {}

            @Override
            public void prepared() {
                execution.join().start();
            }

            @Override
            public void declined(String reason) {
                finished.completeExceptionally(new AssertionError("declined: " + reason));
            }

            @Override
            public void started(Instant at) {}

            @Override
            public void finished(ExecutionResult result) {
                finished.complete(result);
            }
        }));
        return finished.get(120, TimeUnit.SECONDS);
    }

    private <T extends Input> T next(Class<T> type) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            Input input = inputs.poll(100, TimeUnit.MILLISECONDS);
            if (type.isInstance(input)) return type.cast(input);
        }
        throw new AssertionError("no " + type.getSimpleName() + " within " + WAIT);
    }

    private <T extends ServerMessage> T received(Class<T> type) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < end) {
            Input input = inputs.poll(100, TimeUnit.MILLISECONDS);
            if (input instanceof Input.Received r && type.isInstance(r.message())) return type.cast(r.message());
        }
        throw new AssertionError("no " + type.getSimpleName() + " within " + WAIT);
    }
}
