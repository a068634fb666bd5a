package dev.baton.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The system under test: {@code nodes} server processes on one store, a {@link FaultyBalancer}
 * in front of them for the runners, and {@code runners} agents with the process executor, all
 * real processes of the distribution; with the NATS transport, a nats-server the nodes offer the spec
 * on and the lease runners pull from (directly: the balancer is for the server's side). Also creates what the jobs need (an enterprise
 * organization, so no tier limit holds jobs back, a project, a spec the runners serve). In the
 * pool scenario there are no runner agents: a pool of the {@code process} provider starts a
 * single-job runner per waiting job, and the nodes give those machines the balancer's address.
 */
final class Cluster implements AutoCloseable {
    static final String PROJECT = "chaos";
    static final String SPEC = "chaos";
    /** The pool scenario's pool (of {@link #SPEC}). */
    static final String POOL = "chaos";

    private final ChaosSettings settings;
    private final String databaseUrl;
    private final String token = "chaos_admin_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
    private final List<ServerNode> nodes = new ArrayList<>();
    private final List<RunnerAgent> runners = new ArrayList<>();
    private final Api api;
    private FaultyBalancer balancer;
    private BrokerProcess broker;
    private PoolWatch poolWatch;

    /** @param databaseUrl null for SQLite in the (single) node's data directory */
    Cluster(ChaosSettings settings, String databaseUrl) {
        this.settings = settings;
        this.databaseUrl = databaseUrl;
        this.api = new Api(this::nodeUrls, token);
    }

    Api api() {
        return api;
    }

    List<ServerNode> nodes() {
        return nodes;
    }

    List<RunnerAgent> runners() {
        return runners;
    }

    FaultyBalancer balancer() {
        return balancer;
    }

    /** The NATS broker, null on a run without one. */
    BrokerProcess broker() {
        return broker;
    }

    /** The node timeout every node runs with: a node silent this long is found dead by the others. */
    Duration nodeTimeout() {
        return settings.heartbeatTimeout().multipliedBy(2);
    }

    /** Nodes whose process is up (a killed or frozen node is skipped until it is started again or continued). */
    List<String> nodeUrls() {
        List<String> up = nodes.stream()
                .filter(n -> n.process().alive() && !n.process().stopped())
                .map(ServerNode::url)
                .toList();
        return up.isEmpty() ? nodes.stream().map(ServerNode::url).toList() : up;
    }

    /** The pool scenario's watch on its pool, reading from now until the cluster closes (or the caller closes it). */
    PoolWatch watchPool() {
        poolWatch = new PoolWatch(api).start();
        return poolWatch;
    }

    /** The pool scenario's machines' directories ({@code work_dir} of the {@code process} provider). */
    Path poolDir() {
        return settings.workDir().resolve("pool");
    }

    void start() throws IOException, InterruptedException {
        Path shared = Files.createDirectories(settings.workDir().resolve("storage"));
        if (settings.transport().broker()) {
            broker =
                    new BrokerProcess(Files.createDirectories(settings.workDir().resolve("nats")));
            broker.start();
        }
        // The balancer first, so that a pool's machines can be given its address: a machine started
        // by a node that then died reaches the nodes still up through it.
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < settings.nodes()) {
            int port = ServerNode.freePort(); // none bound yet: the same one could come back
            if (!ports.contains(port)) ports.add(port);
        }
        balancer = new FaultyBalancer(
                ports.stream().map(p -> (IntSupplier) () -> p).toList());
        for (int i = 0; i < settings.nodes(); i++) {
            Path home = Files.createDirectories(settings.workDir().resolve("node-" + i));
            Path data = home.resolve("data");
            if (settings.nodes() > 1) {
                // Job output must be readable from every node: the directory store on a shared
                // mount, here one directory linked into each node's data directory.
                Files.createDirectories(data);
                Files.createSymbolicLink(data.resolve("storage"), shared);
            }
            int port = ports.get(i);
            List<String> args = new ArrayList<>(List.of(
                    "server",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    Integer.toString(port),
                    "--data-dir",
                    data.toString(),
                    "--admin-token",
                    token,
                    "--heartbeat-timeout",
                    settings.heartbeatTimeout().toMillis() + "ms",
                    "--acceptance-timeout",
                    "10s",
                    "--job-timeout-grace",
                    "5s",
                    "--cancel-deadline",
                    "5s"));
            if (databaseUrl != null) args.addAll(List.of("--database-url", databaseUrl));
            // The URL a pool's machines get (BATON_SERVER): the balancer, as a cluster's runners
            // reach it through its load balancer.
            if (settings.pool()) args.addAll(List.of("--public-url", balancer.url()));
            if (broker != null) {
                // Every spec is offered on the broker; channel runners of a mixed run claim the same jobs.
                args.addAll(List.of(
                        "--nats-url",
                        broker.url(),
                        "--dispatch-transport",
                        "nats",
                        "--lease-ttl",
                        settings.leaseTtl().toMillis() + "ms"));
            }
            // A node restarted after a SIGKILL comes back under its own id and takes its runners back
            // at once; one that stays away is found dead by the others after the node timeout.
            args.addAll(List.of(
                    "--node-id",
                    "chaos-node-" + i,
                    "--node-timeout",
                    nodeTimeout().toMillis() + "ms"));
            BatonProcess p = new BatonProcess(
                    "node-" + i,
                    settings.install(),
                    args,
                    environment(home, "-Xmx384m -XX:+UseSerialGC"),
                    home.resolve("server.log"));
            ServerNode node = new ServerNode(i, port, p);
            nodes.add(node);
            p.start();
            // One at a time: the first applies the migrations.
            awaitReady(node, Duration.ofMinutes(2));
        }

        Duration setup = Duration.ofSeconds(30);
        api.retrying(
                "POST", "/v0/organizations", Map.of("name", "chaos", "slug", "chaos", "plan", "enterprise"), setup);
        api.retrying("POST", "/v0/projects", Map.of("name", PROJECT, "slug", PROJECT, "organization", "chaos"), setup);
        api.retrying(
                "POST",
                "/v0/specs",
                Map.of(
                        "name",
                        SPEC,
                        "slug",
                        SPEC,
                        "architecture",
                        "x86_64",
                        "cpu",
                        1,
                        "memory",
                        1L << 30,
                        "disk",
                        1L << 30),
                setup);
        if (settings.pool()) {
            createPool(setup);
            return;
        }
        for (int i = 0; i < settings.runners(); i++) {
            String slug = "chaos-runner-" + i;
            JsonNode created = api.retrying("POST", "/v0/runners", Map.of("name", slug, "slug", slug), setup);
            api.retrying("POST", "/v0/runners/" + slug + "/specs", Map.of("spec", SPEC), setup);
            Path home = Files.createDirectories(
                    settings.workDir().resolve("runners").resolve(slug));
            Path key = home.resolve("key");
            Files.writeString(key, created.path("key").asText());
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            Path work = home.resolve("work");
            List<String> args = new ArrayList<>(List.of(
                    "runner",
                    "up",
                    "--server",
                    balancer.url(),
                    "--runner",
                    slug,
                    "--key-file",
                    key.toString(),
                    "--executor",
                    "process",
                    "--allow-no-sandbox",
                    "--work-dir",
                    work.toString(),
                    "--slots",
                    Integer.toString(settings.slots()),
                    "--poll-timeout",
                    "5",
                    "--no-cpu-pinning",
                    "--grace-period",
                    "2s"));
            if (settings.transport().natsRunner(i))
                args.addAll(List.of("--transport", "nats", "--nats-url", broker.url()));
            BatonProcess p = new BatonProcess(
                    slug,
                    settings.install(),
                    args,
                    environment(home, "-Xmx160m -XX:+UseSerialGC -XX:TieredStopAtLevel=1"),
                    home.resolve("runner.log"));
            runners.add(new RunnerAgent(
                    slug,
                    created.path("runner").path("uuid").asText(),
                    work,
                    p,
                    settings.transport().natsRunner(i)));
            p.start();
        }
        awaitRunnersConnected(Duration.ofMinutes(2));
    }

    /**
     * The pool scenario's pool: the {@code process} provider, {@code max} the run's runner count,
     * scale to zero, a short idle timeout. Its command is {@code pool-runner.sh}, which refuses
     * every fifth start (it exits at once, so the provider's start fails) and otherwise runs this
     * distribution's {@code baton} with a small JVM.
     */
    private void createPool(Duration setup) throws IOException, InterruptedException {
        Path starts = settings.workDir().resolve("pool-starts");
        Path command = settings.workDir().resolve("pool-runner.sh");
        Files.writeString(command, """
                #!/bin/sh
                # chaos: the pool's runner command (the process provider's `command`). Every fifth
                # start is refused at once, so the provider's start fails one time in five.
                n=$(( $(cat '%1$s' 2>/dev/null || echo 0) + 1 ))
                echo "$n" > '%1$s'
                if [ $((n %% 5)) -eq 0 ]; then echo "chaos: start $n refused"; exit 3; fi
                export BATON_CDS=off
                export BATON_JAVA_OPTS='-Xmx160m -XX:+UseSerialGC -XX:TieredStopAtLevel=1'
                exec '%2$s' "$@"
                """.formatted(starts, settings.install().resolve("bin/baton")));
        Files.setPosixFilePermissions(command, PosixFilePermissions.fromString("rwx------"));
        Files.createDirectories(poolDir());
        api.retrying(
                "POST",
                "/v0/pools",
                Map.of(
                        "slug",
                        POOL,
                        "spec",
                        SPEC,
                        "max",
                        settings.runners(),
                        "min_idle",
                        0,
                        "idle_timeout_seconds",
                        5,
                        "boot_timeout_seconds",
                        settings.poolBootTimeout().toSeconds(),
                        "provider",
                        "process",
                        "provider_config",
                        Map.of(
                                "command",
                                command.toString(),
                                "work_dir",
                                poolDir().toString(),
                                "args",
                                "--executor process --allow-no-sandbox --poll-timeout 5 --no-cpu-pinning"
                                        + " --grace-period 2s")),
                setup);
    }

    private static Map<String, String> environment(Path home, String javaOpts) {
        // No class-data-sharing training in the background, and a home of the process's own.
        return Map.of("BATON_CDS", "off", "HOME", home.toString(), "BATON_JAVA_OPTS", javaOpts);
    }

    void awaitReady(ServerNode node, Duration within) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(within);
        while (!api.ready(node.url())) {
            if (!node.process().alive())
                throw new IOException(
                        node.process().name() + " exited; see " + node.process().log());
            if (Instant.now().isAfter(deadline))
                throw new IOException(node.process().name() + " not ready within " + within + "; see "
                        + node.process().log());
            Thread.sleep(200);
        }
    }

    /**
     * Every channel runner has heartbeated (its channel is open): the start line of the run. A
     * lease runner says nothing to the server before its first AckLease; its process being
     * up is all there is to wait for (its offers wait on the queue meanwhile).
     */
    private void awaitRunnersConnected(Duration within) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(within);
        while (true) {
            JsonNode list = api.retrying("GET", "/v0/runners", null, within);
            long connected = 0;
            java.util.Set<String> viaChannel = runners.stream()
                    .filter(r -> !r.nats())
                    .map(RunnerAgent::slug)
                    .collect(java.util.stream.Collectors.toSet());
            for (JsonNode r : list)
                if (viaChannel.contains(r.path("slug").asText()) && r.hasNonNull("last_heartbeat")) connected++;
            if (connected == viaChannel.size()) return;
            for (RunnerAgent r : runners) {
                if (!r.process().alive())
                    throw new IOException(
                            r.slug() + " exited; see " + r.process().log());
            }
            if (Instant.now().isAfter(deadline))
                throw new IOException(
                        connected + " of " + viaChannel.size() + " channel runners connected within " + within);
            Thread.sleep(500);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (poolWatch != null) poolWatch.close();
        for (RunnerAgent r : runners) r.process().terminate(10);
        if (balancer != null) balancer.close();
        for (ServerNode n : nodes) n.process().terminate(20);
        if (broker != null) broker.terminate();
        // What the pool left running was counted by the audit; nothing outlives the run.
        if (settings.pool()) PoolProcesses.killAll(poolDir());
    }
}
