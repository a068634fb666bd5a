package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.model.MachineFingerprint;
import dev.baton.protocol.model.NoiseCode;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.fingerprint.CpuList;
import dev.baton.runner.fingerprint.MachineInspector;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.testing.HostFacts;
import dev.baton.runner.update.Updater;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19 end to end, once per store: the real agent reads this machine's fingerprint before
 * each job, the real server keeps it on the attempt, and the job and its report show it; a spec
 * that requires a clean fingerprint is declined by a runner on this machine when the machine has
 * a noisy setting that does not come and go (what this machine has is read by the test itself).
 */
abstract class FingerprintAgainstServerContract {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Path SYS_CPU = Path.of("/sys/devices/system/cpu");

    @TempDir
    Path dir;

    private BatonUnderTest baton;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<RunnerAgent> agents = new ArrayList<>();

    abstract String databaseUrl();

    @BeforeEach
    void start() {
        baton = new BatonUnderTest(dir.resolve("server"), databaseUrl());
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("lab", host);
        baton.post(
                "/v0/specs",
                Map.of(
                        "name",
                        "bare metal",
                        "slug",
                        "bare-metal",
                        "architecture",
                        host,
                        "cpu",
                        1,
                        "memory",
                        256 << 20,
                        "disk",
                        1L << 30,
                        "require_clean_fingerprint",
                        true));
    }

    @AfterEach
    void stop() throws Exception {
        agents.forEach(a -> a.signal(Input.Signal.TERMINATE));
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        threads.shutdownNow();
        baton.close();
    }

    /**
     * A process-executor agent serving {@code spec}, reading the real machine; its workload is
     * pinned to {@code cpus}, which the fingerprint then watches (the agent takes them from the executor).
     */
    private void runAgent(String spec, Optional<String> cpus) {
        BatonUnderTest.Registered created = baton.runner("agent " + spec, spec);
        String slug = created.slug();
        Path home = dir.resolve(slug);
        RunnerAgent agent = new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(1),
                new RunnerAgent.Target(baton.url(), slug, created.key()),
                new ProcessExecutor(home.resolve("work"), OutputLimits.DEFAULT, cpus, Clock.systemUTC(), true),
                new Outbox(home.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200),
                home);
        agents.add(agent);
        threads.submit(agent::run);
    }

    private String submit(String spec) {
        Map<String, Object> run = new HashMap<>(Map.of(
                "project",
                "bench",
                "spec",
                spec,
                "cmd",
                List.of("sh", "-c", "echo '{}'"),
                "timeout",
                60,
                "adapter",
                "json"));
        return baton.post("/v0/run", run).at("/job/uuid").asText();
    }

    private JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }

    @Test
    void aJobAndItsReportShowTheMachineItRanOn() throws Exception {
        CpuList online = CpuList.parse(HostFacts.read(SYS_CPU.resolve("online")));
        String last = online.cpus().last().toString();
        runAgent("lab", Optional.of(last));
        String uuid = submit("lab");
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> job(uuid).path("status").asText().equals("processed"));
        JsonNode done = job(uuid);
        JsonNode fp = done.path("fingerprint");
        assertThat(fp.isObject()).as("the job shows its fingerprint: " + done).isTrue();
        assertThat(fp.path("kernel").asText()).isEqualTo(HostFacts.read(Path.of("/proc/sys/kernel/osrelease")));
        assertThat(fp.path("cpus").asInt()).isEqualTo(online.size());
        assertThat(fp.path("job_cpus").asText())
                .as("the CPUs the workload was pinned to")
                .isEqualTo(last);
        assertThat(fp.path("memory_total").asLong()).isEqualTo(HostFacts.meminfo("MemTotal"));
        assertThat(fp.path("swap_total").asLong()).isEqualTo(HostFacts.meminfo("SwapTotal"));
        assertThat(fp.path("load_average")).hasSize(3);
        assertThat(fp.path("executor").asText()).isEqualTo("process");
        assertThat(fp.path("runner_version").asText()).isEqualTo("test");
        boolean cpufreq = Files.exists(SYS_CPU.resolve("cpu" + last + "/cpufreq/scaling_governor"));
        assertThat(fp.has("governor"))
                .as("governor reported only where cpufreq says it")
                .isEqualTo(cpufreq);
        assertThat(done.at("/attempts/0/fingerprint")).isEqualTo(fp);

        JsonNode report =
                baton.get("/v0/projects/bench/reports/" + done.path("report").asText());
        assertThat(report.at("/job/fingerprint"))
                .as("the report shows the machine its numbers come from")
                .isEqualTo(fp);
    }

    @Test
    void aSpecDemandingWhatThisMachineLacksIsDeclinedNotRun() throws Exception {
        // What this machine lacks for a clean fingerprint, read here as the runner will read it.
        // Busy CPUs come and go with the other work on the machine, so only the settings that stay count.
        MachineFingerprint here = MachineInspector.ofHost(Optional.empty(), Clock.systemUTC())
                .read(new MachineInspector.ExecutorInfo("process", null, "test"));
        List<String> lasting = here.warnings().stream()
                .map(MachineFingerprint.Warning::code)
                .filter(c -> !c.equals(NoiseCode.BUSY_CPUS.wireName()))
                .toList();
        assumeTrue(
                !lasting.isEmpty(),
                "this machine has no lasting noisy setting (governor, frequency, turbo, SMT, swap): "
                        + "nothing a clean spec could be refused for here");

        runAgent("bare-metal", Optional.empty());
        String uuid = submit("bare-metal");
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> job(uuid).at("/attempts/0/outcome").asText().equals("declined"));
        JsonNode waiting = job(uuid);
        assertThat(waiting.path("status").asText()).isEqualTo("pending");
        assertThat(waiting.path("started").isMissingNode()).as("it never ran").isTrue();
        JsonNode attempt = waiting.at("/attempts/0");
        assertThat(attempt.path("decline_code").asText()).isEqualTo("noisy_machine");
        assertThat(attempt.path("decline_reason").asText())
                .startsWith("spec bare-metal requires a clean machine fingerprint: ");
        List<String> sent = new ArrayList<>();
        attempt.at("/fingerprint/warnings").forEach(w -> sent.add(w.path("code").asText()));
        assertThat(sent).containsAll(lasting);
        assertThat(waiting.path("fingerprint").isMissingNode())
                .as("no attempt started: no machine to show for numbers")
                .isTrue();
        assertThat(waiting.at("/pending_reason/declines/0/code").asText()).isEqualTo("noisy_machine");
    }
}
