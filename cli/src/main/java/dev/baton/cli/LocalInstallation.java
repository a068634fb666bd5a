package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.update.Updater;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code baton up} sets up beside a freshly started server so a newcomer sees Baton work:
 * an organization, project and spec named {@code local} for this machine, a runner {@code local}
 * running in the same process, and one sample job submitted through the REST API and followed
 * until it is processed. Everything goes through the public API and the real runner channel.
 *
 * <p>The local runner uses the process executor (no sandbox): it runs the jobs of this machine's
 * own user on this machine. Runners that take jobs from others run with `baton runner up` and
 * the runc executor.
 */
final class LocalInstallation implements AutoCloseable {
    static final String NAME = "local";
    private static final Duration SAMPLE_WAIT = Duration.ofSeconds(60);

    /** The sample job as it ended: its status, how long it took, what it printed and the parsed results. */
    record SampleResult(String job, String status, Duration took, String stdout, String results, String error) {}

    private final ApiClient api;
    private final RunnerAgent agent;
    private final Thread agentThread;

    private LocalInstallation(ApiClient api, RunnerAgent agent, Thread agentThread) {
        this.api = api;
        this.agent = agent;
        this.agentThread = agentThread;
    }

    /** Creates (or reuses) the local organization, project, spec and runner, and starts the runner. */
    static LocalInstallation start(String serverUrl, String adminToken, Path dataDir) {
        ApiClient api = new ApiClient(serverUrl, adminToken);
        ensure(
                api,
                "/v0/organizations/" + NAME,
                "/v0/organizations",
                Map.of("name", "Local", "slug", NAME, "plan", "team"));
        ensure(
                api,
                "/v0/projects/" + NAME,
                "/v0/projects",
                Map.of("name", "Local", "slug", NAME, "organization", NAME));
        Architecture arch = Architecture.ofHost()
                .orElseThrow(() -> new ClientException(
                        "this machine's architecture (" + System.getProperty("os.arch") + ") is not supported"));
        ensure(
                api,
                "/v0/specs/" + NAME,
                "/v0/specs",
                Map.of(
                        "name",
                        "This machine",
                        "slug",
                        NAME,
                        "architecture",
                        arch.wireName(),
                        "cpu",
                        Runtime.getRuntime().availableProcessors(),
                        "memory",
                        physicalMemory(),
                        "disk",
                        10L << 30));
        RunnerKey key = runnerKey(api);
        api.post("/v0/runners/" + NAME + "/specs", Map.of("spec", NAME));

        Path home = dataDir.toAbsolutePath().resolve("runner");
        var executor = new ProcessExecutor(
                home.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        RunnerAgent agent = new RunnerAgent(
                MachineConfig.defaults(dev.baton.cli.runner.UpCommand.version()),
                new RunnerAgent.Target(URI.create(serverUrl), NAME, key),
                executor,
                new Outbox(home.resolve("outbox")),
                Updater.unsupported("the local runner is updated with the server"),
                Clock.systemUTC(),
                Duration.ofSeconds(1));
        // Not at start (a first run should not wait for it); when asked, 'baton runners noise local' (decision 0062).
        agent.calibrateOnRequest(new dev.baton.runner.noise.NoiseProbe(
                home.resolve("noise"), dev.baton.cli.runner.UpCommand.ON_REQUEST_REPETITIONS, Optional.empty(), 600));
        Thread thread = Thread.ofPlatform().name("baton-local-runner").daemon().start(() -> {
            try {
                agent.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return new LocalInstallation(api, agent, thread);
    }

    /** Submits the sample benchmark and waits until it is processed (or ends otherwise). */
    SampleResult runSample() {
        String script = "i=0; start=$(date +%s%N); while [ $i -lt 20000 ]; do i=$((i+1)); done; end=$(date +%s%N);"
                + " echo \"{\\\"sample\\\":{\\\"shell-loop-20k\\\":{\\\"value\\\":$(( (end-start)/1000 ))}}}\"";
        Instant submitted = Instant.now();
        Map<String, Object> body = new java.util.HashMap<>(Map.of(
                "project",
                NAME,
                "spec",
                NAME,
                "adapter",
                "json",
                "branch",
                "main",
                "testbed",
                NAME,
                "cmd",
                List.of("sh", "-c", script),
                "timeout",
                60));
        // A command-only run: the local runner's process executor needs no image.
        JsonNode run = api.post("/v0/run", body);
        String job = run.at("/job/uuid").asText();
        Instant deadline = submitted.plus(SAMPLE_WAIT);
        JsonNode view = api.get("/v0/projects/" + NAME + "/jobs/" + job);
        String reportPath =
                "/v0/projects/" + NAME + "/reports/" + run.at("/report/uuid").asText();
        JsonNode report = api.get(reportPath);
        while (!isFinal(view.path("status").asText(), report) && Instant.now().isBefore(deadline)) {
            sleep(Duration.ofMillis(100));
            view = api.get("/v0/projects/" + NAME + "/jobs/" + job);
            if (view.path("status").asText().equals("completed")) report = api.get(reportPath);
        }
        String status = view.path("status").asText();
        report = api.get(reportPath);
        String results = report.hasNonNull("results") ? report.get("results").toString() : null;
        String error = view.hasNonNull("error")
                ? view.get("error").asText()
                : report.path("error").asText(null);
        return new SampleResult(
                job,
                status,
                Duration.between(submitted, Instant.now()),
                view.at("/output/results/0/stdout").asText("").strip(),
                results,
                error);
    }

    @Override
    public void close() {
        agent.signal(Input.Signal.TERMINATE);
        try {
            agentThread.join(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ended: processed, failed, canceled, or completed with output its adapter could not parse (it stays completed). */
    private static boolean isFinal(String status, JsonNode report) {
        if (status.equals("completed")) return report.hasNonNull("error");
        return status.equals("processed") || status.equals("failed") || status.equals("canceled");
    }

    /** GET the resource; create it when it does not exist yet. */
    private static void ensure(ApiClient api, String resource, String collection, Map<String, Object> body) {
        try {
            api.get(resource);
        } catch (ClientException e) {
            if (!e.getMessage().contains("_not_found")) throw e;
            api.post(collection, body);
        }
    }

    /** A fresh key for the local runner: created the first time, rotated on every later start (keys are shown only once). */
    private static RunnerKey runnerKey(ApiClient api) {
        JsonNode issued;
        try {
            api.get("/v0/runners/" + NAME);
            issued = api.post("/v0/runners/" + NAME + "/token", Map.of());
        } catch (ClientException e) {
            if (!e.getMessage().contains("_not_found")) throw e;
            issued = api.post("/v0/runners", Map.of("name", "Local runner", "slug", NAME));
        }
        return RunnerKey.parse(issued.get("key").asText());
    }

    private static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return Math.max(1, os.getTotalMemorySize());
        }
        return 1L << 30;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted");
        }
    }
}
