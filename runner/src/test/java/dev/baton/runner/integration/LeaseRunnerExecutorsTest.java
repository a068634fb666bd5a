package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.core.config.BrokerSettings;
import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.MicroVmExecutor;
import dev.baton.runner.executor.MicroVmSetup;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.QemuMicrovm;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.lease.LeaseRunner;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.oci.RegistryBlobSource;
import dev.baton.runner.testing.TestImages;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NATS transport with the sandboxing executors: the Java lease runner pulls an offer from a real
 * nats-server, binds it, pulls the job's image from Baton's own registry with the pull token that
 * came in {@code LeaseAccepted} (the broker message has none), runs it in runc or a microVM, and
 * its {@code Complete} carries every iteration and the collected files to the report. Each test is
 * skipped, with the reason, where its executor cannot run.
 */
@Tag("nats")
@Tag("container")
@Tag("microvm")
class LeaseRunnerExecutorsTest {
    private static final Duration LEASE_TTL = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private NatsServerProcess nats;
    private BatonUnderTest baton;
    private Path work;
    private LeaseRunner runner;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void requireNats() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping the NATS transport");
    }

    @BeforeEach
    void start() throws Exception {
        assumeTrue(
                Files.isExecutable(TestImages.BUSYBOX),
                "no static busybox at " + TestImages.BUSYBOX + " (apt-get install busybox-static)");
        nats = new NatsServerProcess(dir.resolve("nats"));
        baton = new BatonUnderTest(
                dir.resolve("server"),
                null,
                b -> b.broker(new BrokerSettings(nats.url(), "nats", Set.of(), LEASE_TTL)),
                Clock.systemUTC());
        baton.benchProject();
        baton.spec("host", Architecture.X86_64.wireName());
    }

    @AfterEach
    void stop() throws Exception {
        if (runner != null) runner.signal(Input.Signal.TERMINATE);
        threads.shutdown();
        threads.awaitTermination(60, TimeUnit.SECONDS);
        threads.shutdownNow();
        if (baton != null) baton.close();
        if (nats != null) nats.close();
        if (work != null)
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
    }

    @Test
    void runcRunsEveryIterationOfAnImageFromTheRegistryAndReportsItsFiles() throws Exception {
        Optional<String> unavailable = RuncExecutor.unavailableReason("runc");
        assumeTrue(unavailable.isEmpty(), () -> "runc over the NATS transport skipped: " + unavailable.orElse(""));
        // runc needs a work directory other users can traverse (user namespaces).
        work = Files.createTempDirectory(
                Path.of("/tmp"),
                "baton-lease-runc",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        TestImages.Image image = TestImages.busybox(work.resolve("layout"), List.of("true"), List.of());
        baton.pushImage(image, "bench/busybox", "v1");
        HttpClient http = HttpClient.newHttpClient();
        start(
                new RuncExecutor(
                        new RuncExecutor.Options(
                                "runc",
                                work.resolve("runner"),
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
                        Clock.systemUTC()),
                work.resolve("home"));

        String cmd =
                "echo \"{\\\"lease-runc\\\": {\\\"iteration\\\": {\\\"value\\\": $BATON_ITERATION}}}\"; echo file-$BATON_ITERATION > result.txt";
        String uuid = submit(image, cmd, 2, 120);
        JsonNode done = awaitProcessed(uuid, Duration.ofSeconds(120));
        JsonNode results = done.at("/output/results");
        assertThat(results).as("both iterations travelled in Complete.results").hasSize(2);
        for (int i = 0; i < 2; i++) {
            JsonNode it = results.get(i);
            String n = it.at("/stdout")
                    .asText()
                    .replaceAll("(?s).*\"value\": (\\d+).*", "$1")
                    .strip();
            assertThat(it.get("exit_code").asInt()).isZero();
            assertThat(it.at("/output/result.txt").asText())
                    .as("iteration %d's collected file", i)
                    .isEqualTo("file-" + n + "\n");
        }
        assertThat(results.get(0).at("/output/result.txt").asText())
                .isNotEqualTo(results.get(1).at("/output/result.txt").asText());
        assertThat(done.get("attempts")).singleElement().satisfies(a -> {
            assertThat(a.get("outcome").asText()).isEqualTo("completed");
            assertThat(a.get("transport").asText()).isEqualTo("nats");
        });
        JsonNode report =
                baton.get("/v0/projects/bench/reports/" + done.get("report").asText());
        assertThat(report.toString()).contains("lease-runc");
    }

    @Test
    void aMicroVmRunsAnImageFromTheRegistryAndReportsItsFile() throws Exception {
        Optional<Path> kernel = MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"));
        assumeTrue(
                kernel.isPresent(),
                "microVM over the NATS transport skipped: no /boot/vmlinuz-* with modules (apt-get install linux-image-amd64)");
        Path modules = MicroVmKernels.modulesFor(kernel.get(), Path.of("/lib/modules"));
        Optional<String> unavailable =
                MicroVmExecutor.unavailableReason(MicroVmSetup.QEMU, kernel.get(), modules, TestImages.BUSYBOX);
        assumeTrue(unavailable.isEmpty(), () -> "microVM over the NATS transport skipped: " + unavailable.orElse(""));
        work = Files.createTempDirectory(Path.of("/tmp"), "bvml"); // short: the VM's Unix socket paths must fit
        TestImages.Image image = TestImages.busybox(work.resolve("layout"), List.of("true"), List.of());
        baton.pushImage(image, "bench/vm", "v1");
        HttpClient http = HttpClient.newHttpClient();
        start(
                new MicroVmExecutor(
                        new MicroVmExecutor.Options(
                                QemuMicrovm.onThisHost(MicroVmSetup.QEMU, "tcg"),
                                work.resolve("r"),
                                Architecture.X86_64,
                                kernel.get(),
                                modules,
                                TestImages.BUSYBOX,
                                OutputLimits.DEFAULT,
                                job -> new RegistryBlobSource(
                                        http,
                                        job.config().registry(),
                                        job.config().project().toString(),
                                        job.ociToken()),
                                Long.MAX_VALUE),
                        Clock.systemUTC()),
                work.resolve("h"));

        // One small job: a TCG boot takes seconds, tens of seconds on a machine busy with other builds.
        String uuid =
                submit(image, "echo '{\"lease-vm\": {\"turns\": {\"value\": 1}}}'; echo saved > result.txt", 1, 180);
        JsonNode done = awaitProcessed(uuid, Duration.ofSeconds(300));
        assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
        assertThat(done.at("/output/results/0/output/result.txt").asText()).isEqualTo("saved\n");
        assertThat(done.get("attempts")).singleElement().satisfies(a -> {
            assertThat(a.get("outcome").asText()).isEqualTo("completed");
            assertThat(a.get("transport").asText()).isEqualTo("nats");
        });
        JsonNode report =
                baton.get("/v0/projects/bench/reports/" + done.get("report").asText());
        assertThat(report.toString()).contains("lease-vm");
    }

    private void start(Executor executor, Path home) {
        BatonUnderTest.Registered created = baton.runner("lease runner", "host");
        String slug = created.slug();
        runner = new LeaseRunner(
                MachineConfig.defaults("test").withGrace(Duration.ofSeconds(5)),
                new LeaseRunner.Target(baton.url(), slug, created.key(), nats.url()),
                executor,
                home,
                Clock.systemUTC());
        threads.submit(runner::run);
    }

    private String submit(TestImages.Image image, String shell, int iterations, int timeout) {
        return baton.post(
                        "/v0/run",
                        Map.of(
                                "project",
                                "bench",
                                "spec",
                                "host",
                                "image",
                                image.digest().value(),
                                "cmd",
                                List.of("sh", "-c", shell),
                                "timeout",
                                timeout,
                                "adapter",
                                "json",
                                "iterations",
                                iterations,
                                "file_paths",
                                List.of("result.txt")))
                .at("/job/uuid")
                .asText();
    }

    private JsonNode awaitProcessed(String uuid, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(200)).until(() -> {
            String status = job(uuid).get("status").asText();
            assertThat(status).as("job %s ended otherwise: %s", uuid, job(uuid)).isNotIn("failed", "canceled");
            return status.equals("processed");
        });
        return job(uuid);
    }

    private JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }
}
