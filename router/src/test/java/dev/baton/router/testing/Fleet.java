package dev.baton.router.testing;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.router.Router;
import dev.baton.router.RouterKeys;
import dev.baton.router.RouterSettings;
import dev.baton.router.policy.SchedulingPolicy;
import dev.baton.runner.RunnerAgent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A real Baton server (SQLite), an organization on the team plan with projects {@code alpha} and
 * {@code beta}, a spec {@code host}, the router registered on the server as one runner of that
 * spec, and a keys file for runners behind the router. Routers and runners run in this JVM over
 * real sockets, or in JVMs of their own when a test kills them.
 */
public final class Fleet implements AutoCloseable {
    public static final Duration SERVER_HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
    private final Path dir;
    public final ServerUnderTest server;
    public final String routerSlug;
    public final String routerUuid;
    public final RunnerKey routerKey;
    public final Path keysFile;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<RunnerAgent> agents = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    private final List<Router> routers = new ArrayList<>();
    private final Map<String, RunnerKey> runnerKeys = new HashMap<>();

    public Fleet(Path dir) {
        this.dir = dir;
        this.server = new ServerUnderTest(dir.resolve("server"), SERVER_HEARTBEAT_TIMEOUT);
        server.post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"));
        server.post("/v0/projects", Map.of("name", "Alpha", "slug", "alpha", "organization", "acme"));
        server.post("/v0/projects", Map.of("name", "Beta", "slug", "beta", "organization", "acme"));
        String host = Architecture.ofHost().orElseThrow().wireName();
        server.post(
                "/v0/specs",
                Map.of(
                        "name",
                        "host",
                        "slug",
                        "host",
                        "architecture",
                        host,
                        "cpu",
                        1,
                        "memory",
                        256 << 20,
                        "disk",
                        1L << 30));
        JsonNode created = server.post("/v0/runners", Map.of("name", "router"));
        this.routerSlug = created.at("/runner/slug").asText();
        this.routerUuid = created.at("/runner/uuid").asText();
        server.post("/v0/runners/" + routerSlug + "/specs", Map.of("spec", "host"));
        this.routerKey = RunnerKey.parse(created.get("key").asText());
        this.keysFile = dir.resolve("router-keys");
    }

    public String projectUuid(String slug) {
        return server.get("/v0/projects/" + slug).at("/uuid").asText();
    }

    /** A runner behind the router, with a key of the router's (not the server's). */
    public RunnerKey runnerKey(String name) {
        try {
            RunnerKey key = RouterKeys.issue(keysFile, name, List.of("host"));
            runnerKeys.put(name, key);
            return key;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public Router router(SchedulingPolicy policy, RouterSettings settings, Clock clock) {
        return router(policy, settings, clock, 0);
    }

    /** A router in this JVM on {@code port} (0: any), with the fleet's state directory. */
    public Router router(SchedulingPolicy policy, RouterSettings settings, Clock clock, int port) {
        Router r = Router.start(
                new Router.Options(
                        server.url(),
                        routerSlug,
                        routerKey,
                        "127.0.0.1",
                        port,
                        keysFile,
                        dir.resolve("router-state"),
                        policy,
                        settings),
                clock);
        routers.add(r);
        return r;
    }

    public static URI url(Router router) {
        return URI.create("http://127.0.0.1:" + router.port());
    }

    /** An unmodified runner agent in this JVM, connected to {@code router}. */
    public RunnerAgent agent(URI router, String name) {
        RunnerKey key = runnerKeys.containsKey(name) ? runnerKeys.get(name) : runnerKey(name);
        RunnerAgent agent = RunnerMain.agent(router, name, key, dir.resolve("runner-" + name));
        agents.add(agent);
        threads.submit(agent::run);
        return agent;
    }

    /** A runner agent in a JVM of its own (killable). */
    public Process agentProcess(URI router, String name) throws IOException {
        RunnerKey key = runnerKeys.containsKey(name) ? runnerKeys.get(name) : runnerKey(name);
        Process p = java(
                RunnerMain.class,
                List.of(router.toString(), name, dir.resolve("runner-" + name).toString()),
                Map.of("BATON_TEST_RUNNER_KEY", key.reveal()),
                dir.resolve("runner-" + name + ".log"));
        processes.add(p);
        return p;
    }

    /** A router in a JVM of its own (killable) on {@code port} (0: any); returns it with its port. */
    public Map.Entry<Process, Integer> routerProcess(int port) throws IOException {
        Process p = java(
                RouterMain.class,
                List.of(
                        server.url().toString(),
                        routerSlug,
                        Integer.toString(port),
                        keysFile.toString(),
                        dir.resolve("router-state").toString()),
                Map.of("BATON_TEST_ROUTER_KEY", routerKey.reveal()),
                dir.resolve("router.log"));
        processes.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith("listening "))
                return Map.entry(
                        p,
                        Integer.parseInt(line.substring("listening ".length()).strip()));
        }
        throw new AssertionError("the router process ended before listening; see " + dir.resolve("router.log"));
    }

    private static Process java(Class<?> main, List<String> args, Map<String, String> env, Path log)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx128m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(log.toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** A command-only run in {@code project} (the process executor takes them). */
    public String submit(String project, List<String> cmd, Map<String, Object> extra) {
        Map<String, Object> run = new HashMap<>(
                Map.of("project", project, "spec", "host", "cmd", cmd, "timeout", 120, "adapter", "json"));
        run.putAll(extra);
        return server.post("/v0/run", run).at("/job/uuid").asText();
    }

    public JsonNode job(String project, String uuid) {
        return server.get("/v0/projects/" + project + "/jobs/" + uuid);
    }

    public JsonNode awaitStatus(String project, String uuid, String status, Duration within) {
        await().atMost(within)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> job(project, uuid).get("status").asText().equals(status));
        return job(project, uuid);
    }

    @Override
    public void close() throws Exception {
        agents.forEach(a -> a.signal(Input.Signal.TERMINATE));
        for (Process p : processes) p.destroyForcibly();
        threads.shutdown();
        threads.awaitTermination(20, TimeUnit.SECONDS);
        threads.shutdownNow();
        routers.forEach(Router::close);
        server.close();
    }
}
