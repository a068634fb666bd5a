package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.MicroVmExecutor;
import dev.baton.runner.executor.MicroVmSetup;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.executor.QemuMicrovm;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import dev.baton.runner.oci.RegistryBlobSource;
import dev.baton.runner.testing.TestImages;
import dev.baton.runner.update.Updater;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real agent against the real server: jobs submitted over the REST API, dispatched over the
 * runner channel, executed by the process and runc executors (images pulled from Baton's own
 * registry with the job's pull token), and their results stored and processed.
 */
@Tag("container")
@Tag("microvm")
class AgentAgainstServerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private BatonUnderTest baton;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<RunnerAgent> agents = new ArrayList<>();
    private int runners;

    @BeforeEach
    void start() {
        baton = new BatonUnderTest(dir.resolve("server"));
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("host", host);
        baton.spec("arm", "aarch64");
    }

    @AfterEach
    void stop() throws Exception {
        agents.forEach(a -> a.signal(Input.Signal.TERMINATE));
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        threads.shutdownNow();
        baton.close();
    }

    /** Registers a runner for {@code spec} and returns its slug and key. */
    private Map.Entry<String, RunnerKey> register(String spec) {
        BatonUnderTest.Registered created = baton.runner("agent " + (++runners), spec);
        return Map.entry(created.slug(), created.key());
    }

    private RunnerAgent agent(String spec, MachineConfig config, Executor executor) {
        var registered = register(spec);
        Path home = dir.resolve(registered.getKey());
        RunnerAgent agent = new RunnerAgent(
                config,
                new RunnerAgent.Target(baton.url(), registered.getKey(), registered.getValue()),
                executor,
                new Outbox(home.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200));
        agents.add(agent);
        return agent;
    }

    private RunnerAgent processAgent(String spec, MachineConfig config) {
        Path work = dir.resolve("work-" + (runners + 1));
        return agent(
                spec,
                config,
                new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true));
    }

    private Future<Integer> run(RunnerAgent agent) {
        return threads.submit(agent::run);
    }

    /** A run for {@code spec}; {@code image} null is a command-only run, as the process executor takes them. */
    private String submit(String spec, String image, List<String> cmd, int timeout, List<String> files) {
        Map<String, Object> run = new HashMap<>(
                Map.of("project", "bench", "spec", spec, "cmd", cmd, "timeout", timeout, "adapter", "json"));
        if (image != null) run.put("image", image);
        if (!files.isEmpty()) run.put("file_paths", files);
        return baton.post("/v0/run", run).at("/job/uuid").asText();
    }

    private String submit(List<String> cmd, int timeout) {
        return submit("host", null, cmd, timeout, List.of());
    }

    private JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }

    private JsonNode awaitStatus(String uuid, String status) {
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> job(uuid).get("status").asText().equals(status));
        return job(uuid);
    }

    @Test
    void aJobRunsEndToEndWithTheProcessExecutor() {
        run(processAgent("host", MachineConfig.defaults("test")));
        String job = submit(
                "host",
                null,
                List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":3}}}'; echo saved > result.txt"),
                60,
                List.of("result.txt"));
        JsonNode done = awaitStatus(job, "processed");
        assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
        assertThat(done.at("/output/results/0/output/result.txt").asText()).isEqualTo("saved\n");
        assertThat(done.get("started").asText()).isNotEmpty();
    }

    @Test
    void aJobPulledFromBatonsRegistryRunsInRunc() throws Exception {
        Optional<String> unavailable = RuncExecutor.unavailableReason("runc");
        assumeTrue(unavailable.isEmpty(), () -> "runc end-to-end test skipped: " + unavailable.orElse(""));
        assumeTrue(
                Files.isExecutable(TestImages.BUSYBOX),
                "runc end-to-end test skipped: no static busybox at /bin/busybox");
        // runc needs a work directory other users can traverse (user namespaces).
        Path work = Files.createTempDirectory(
                Path.of("/tmp"),
                "baton-e2e",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        try {
            TestImages.Image image =
                    TestImages.busybox(work.resolve("layout"), List.of("sh", "-c", "echo from-image"), List.of());
            baton.pushImage(image, "bench/busybox", "v1");

            HttpClient http = HttpClient.newHttpClient();
            var executor = new RuncExecutor(
                    new RuncExecutor.Options(
                            "runc",
                            work.resolve("runner"),
                            Architecture.X86_64,
                            true,
                            100_000,
                            256,
                            Optional.empty(),
                            OutputLimits.DEFAULT,
                            claimed -> new RegistryBlobSource(
                                    http,
                                    claimed.config().registry(),
                                    claimed.config().project().toString(),
                                    claimed.ociToken())),
                    Clock.systemUTC());
            run(agent("host", MachineConfig.defaults("test"), executor));
            // stdout is the BMF the json adapter parses; the image's own file goes to stderr.
            String job = submit(
                    "host",
                    image.digest().value(),
                    List.of("sh", "-c", "echo '{\"a\":{\"b\":{\"value\":1}}}'; cat /etc/group | head -1 >&2"),
                    60,
                    List.of());
            JsonNode done = awaitStatus(job, "processed");
            assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
            assertThat(done.at("/output/results/0/stderr").asText()).contains("root:x:0:");
        } finally {
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
        }
    }

    @Test
    void aJobPulledFromBatonsRegistryRunsInAMicroVmAndItsReportIsStored() throws Exception {
        Optional<Path> kernel = MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"));
        assumeTrue(
                kernel.isPresent(),
                "microVM end-to-end test skipped: no /boot/vmlinuz-* with modules (apt-get install linux-image-amd64)");
        Path modules = MicroVmKernels.modulesFor(kernel.get(), Path.of("/lib/modules"));
        Optional<String> unavailable =
                MicroVmExecutor.unavailableReason(MicroVmSetup.QEMU, kernel.get(), modules, TestImages.BUSYBOX);
        assumeTrue(unavailable.isEmpty(), () -> "microVM end-to-end test skipped: " + unavailable.orElse(""));
        Path work = Files.createTempDirectory(Path.of("/tmp"), "bvme"); // short: the VM's Unix socket paths must fit
        try {
            // The README's sample image, smaller: a busybox shell loop that prints Bencher Metric Format JSON.
            TestImages.Image image =
                    TestImages.busybox(work.resolve("layout"), List.of("sh", "-c", "echo image-cmd"), List.of());
            baton.pushImage(image, "bench/vm", "v1");
            HttpClient http = HttpClient.newHttpClient();
            var executor = new MicroVmExecutor(
                    new MicroVmExecutor.Options(
                            QemuMicrovm.onThisHost(MicroVmSetup.QEMU, "tcg"),
                            work.resolve("r"),
                            Architecture.X86_64,
                            kernel.get(),
                            modules,
                            TestImages.BUSYBOX,
                            OutputLimits.DEFAULT,
                            claimed -> new RegistryBlobSource(
                                    http,
                                    claimed.config().registry(),
                                    claimed.config().project().toString(),
                                    claimed.ociToken()),
                            Long.MAX_VALUE),
                    Clock.systemUTC());
            var registered = register("host");
            Path home = dir.resolve(registered.getKey());
            RunnerAgent agent = new RunnerAgent(
                    MachineConfig.defaults("test"),
                    new RunnerAgent.Target(baton.url(), registered.getKey(), registered.getValue()),
                    executor,
                    new Outbox(home.resolve("outbox")),
                    Updater.unsupported("test"),
                    Clock.systemUTC(),
                    Duration.ofMillis(200));
            agents.add(agent);
            run(agent);
            String loop =
                    "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; echo \"{\\\"shell-loop-2k\\\": {\\\"turns\\\": {\\\"value\\\": $i}}}\";"
                            + " echo saved > result.txt";
            String job = submit("host", image.digest().value(), List.of("sh", "-c", loop), 120, List.of("result.txt"));
            // A TCG boot takes seconds, tens of seconds on a machine busy with other builds.
            await().atMost(Duration.ofSeconds(240))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> job(job).get("status").asText().equals("processed"));
            JsonNode done = job(job);
            assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
            assertThat(done.at("/output/results/0/stdout").asText())
                    .isEqualTo("{\"shell-loop-2k\": {\"turns\": {\"value\": 2000}}}\n");
            assertThat(done.at("/output/results/0/output/result.txt").asText()).isEqualTo("saved\n");
            JsonNode report =
                    baton.get("/v0/projects/bench/reports/" + done.get("report").asText());
            assertThat(report.toString())
                    .contains("shell-loop-2k")
                    .contains("turns")
                    .contains("2000");
            JsonNode capabilities = baton.get("/v0/runners/" + registered.getKey() + "/capabilities")
                    .get("capabilities");
            assertThat(capabilities.get("executor").asText()).isEqualTo("microvm");
            assertThat(capabilities.get("accelerator").asText()).isEqualTo("tcg");
        } finally {
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
        }
    }

    @Test
    void aRunnerOnAnotherArchitectureIsRefusedAndTheJobReachesOneThatMatches() {
        // This machine is not aarch64: the server refuses the first agent at its `ready` (close 4009, issue 41),
        // so it never claims the job (it used to claim and decline it); the second agent says it is aarch64.
        run(processAgent("arm", MachineConfig.defaults("test")));
        String job = submit("arm", null, List.of("sh", "-c", "echo '{}'"), 60, List.of());
        // Its ready reached the server (which records the machine before the check)...
        await().atMost(WAIT).until(this::someRunnerReportedItsMachine);
        // ...and it was sent away: the job waits, neither claimed nor declined.
        await().during(Duration.ofSeconds(2))
                .atMost(WAIT)
                .until(() -> job(job).get("status").asText().equals("pending"));
        assertThat(job(job).get("requeues").asInt()).isZero();

        MachineConfig arm = MachineConfig.defaults("test");
        arm = new MachineConfig(
                arm.slots(),
                arm.pollTimeoutSeconds(),
                arm.os(),
                Optional.of(Architecture.AARCH64),
                arm.version(),
                arm.grace(),
                arm.stopGrace(),
                arm.maxSends(),
                arm.backoffBase(),
                arm.backoffMax(),
                arm.maxMessageBytes(),
                arm.capabilities());
        run(processAgent("arm", arm));
        JsonNode done = awaitStatus(job, "processed");
        assertThat(done.get("attempt").asInt()).isEqualTo(1);
        assertThat(done.get("requeues").asInt()).isZero();
    }

    private boolean someRunnerReportedItsMachine() {
        JsonNode listed = baton.get("/v0/runners");
        JsonNode runners = listed.isArray() ? listed : listed.path("runners");
        for (JsonNode runner : runners) {
            if (runner.path("machine").path("arch").isTextual()) return true;
        }
        return false;
    }

    @Test
    void aServerRestartMidJobDeliversTheResultAfterTheRunnerReconnects() {
        run(processAgent("host", MachineConfig.defaults("test")));
        String job = submit(List.of("sh", "-c", "sleep 3; echo '{\"r\":{\"t\":{\"value\":1}}}'"), 60);
        awaitStatus(job, "running");
        baton.restart();
        JsonNode done = awaitStatus(job, "processed");
        assertThat(done.at("/output/results/0/stdout").asText()).contains("\"value\":1");
        assertThat(done.get("attempt").asInt()).isEqualTo(1);
    }

    @Test
    void sigtermWithAJobInFlightFinishesItWithinTheGracePeriod() throws Exception {
        RunnerAgent agent = processAgent("host", MachineConfig.defaults("test").withGrace(Duration.ofSeconds(30)));
        Future<Integer> exit = run(agent);
        String job = submit(List.of("sh", "-c", "sleep 2; echo '{}'"), 60);
        awaitStatus(job, "running");
        agent.signal(Input.Signal.TERMINATE);
        awaitStatus(job, "processed");
        assertThat(exit.get(30, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_OK);
    }

    @Test
    void aUserCancelMidRunStopsTheWorkload() {
        run(processAgent("host", MachineConfig.defaults("test")));
        String job = submit(List.of("sh", "-c", "echo partial; sleep 120"), 600);
        awaitStatus(job, "running");
        baton.post("/v0/projects/bench/jobs/" + job + "/cancel", Map.of());
        // The runner answers canceled with its partial output, stored with the job.
        await().atMost(WAIT)
                .until(() -> job(job).at("/output/results/0/stdout").asText().equals("partial\n"));
        assertThat(job(job).get("status").asText()).isEqualTo("canceled");
    }

    @Test
    void theLocalTimeoutFailsAJobThatRunsTooLong() {
        run(processAgent("host", MachineConfig.defaults("test")));
        String job = submit(List.of("sh", "-c", "echo begun; sleep 120"), 1);
        JsonNode failed = awaitStatus(job, "failed");
        assertThat(failed.get("error").asText()).containsIgnoringCase("timeout");
    }

    @Test
    void twoSlotsRunTwoJobsAtOnce() {
        run(processAgent("host", MachineConfig.defaults("test").withSlots(2)));
        String a = submit(List.of("sh", "-c", "sleep 3; echo '{}'"), 60);
        String b = submit(List.of("sh", "-c", "sleep 3; echo '{}'"), 60);
        await().atMost(WAIT)
                .until(() -> job(a).get("status").asText().equals("running")
                        && job(b).get("status").asText().equals("running"));
        awaitStatus(a, "processed");
        awaitStatus(b, "processed");
    }
}
