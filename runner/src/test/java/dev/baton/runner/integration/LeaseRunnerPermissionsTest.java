package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.broker.NatsBroker;
import dev.baton.broker.RunnerGrant;
import dev.baton.channelclient.machine.Input;
import dev.baton.core.config.BrokerSettings;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.lease.LeaseRunner;
import dev.baton.runner.machine.MachineConfig;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 end to end, as docs/operations.md runs it: nats-server with JetStream in its config
 * file, the server's user an nkey seed file ({@code nats_credentials}), each runner's user the
 * {@link RunnerGrant} {@code baton runners nats-user} prints, added by a config reload once the
 * runners exist. Baton's runner works under its grant (pull on its inbox prefix, ack, cancel on its
 * control subject), and another runner, with its own grant, reads none of it.
 */
@Tag("nats")
class LeaseRunnerPermissionsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    NatsServerProcess nats;
    BatonUnderTest baton;
    LeaseRunner runner;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void requireNats() {
        assumeTrue(
                NatsServerProcess.available(),
                "no nats-server at " + NatsServerProcess.BINARY + ": skipping the NATS transport");
    }

    @AfterEach
    void stop() throws Exception {
        if (runner != null) runner.signal(Input.Signal.TERMINATE);
        threads.shutdown();
        threads.awaitTermination(40, TimeUnit.SECONDS);
        threads.shutdownNow();
        if (baton != null) baton.close();
        if (nats != null) nats.close();
    }

    static String user(String name, String password, RunnerGrant grant) {
        return "    { user: \"" + name + "\", password: \"" + password + "\", permissions: {\n"
                + "        publish: { allow: " + quoted(grant.publish()) + " },\n"
                + "        subscribe: { allow: " + quoted(grant.subscribe()) + " } } }\n";
    }

    static String quoted(List<String> subjects) {
        return "["
                + String.join(", ", subjects.stream().map(s -> "\"" + s + "\"").toList()) + "]";
    }

    @Test
    void batonsRunnerWorksUnderItsGrantAndAnotherRunnerReadsNoneOfIt() throws Exception {
        NKey serverKey = NKey.createUser(new SecureRandom());
        Path seed = dir.resolve("baton-server.nk");
        Files.writeString(seed, new String(serverKey.getSeed()) + "\n");
        String serverUser = "    { nkey: \"" + new String(serverKey.getPublicKey())
                + "\", permissions: { publish: [\">\"], subscribe: [\">\"] } }\n";
        nats = new NatsServerProcess(
                dir.resolve("nats"),
                NatsServerProcess.JetStreamIn.CONFIG_FILE,
                "authorization {\n  users = [\n" + serverUser + "  ]\n}\n");
        baton = new BatonUnderTest(
                dir.resolve("server"),
                null,
                b -> b.broker(new BrokerSettings(nats.url(), "nats", Set.of(), Duration.ofSeconds(6), seed.toString())),
                Clock.systemUTC());
        baton.benchProject();
        String host = Architecture.ofHost().orElseThrow().wireName();
        for (String spec : List.of("host", "other")) {
            baton.spec(spec, host);
        }
        JsonNode box = baton.post("/v0/runners", Map.of("name", "box"));
        baton.post("/v0/runners/box/specs", Map.of("spec", "host"));
        baton.post("/v0/runners", Map.of("name", "spy"));
        baton.post("/v0/runners/spy/specs", Map.of("spec", "other"));
        RunnerGrant boxGrant = RunnerGrant.of("box", List.of("host"));
        RunnerGrant spyGrant = RunnerGrant.of("spy", List.of("other"));
        nats.rewrite("authorization {\n  users = [\n" + serverUser + user("runner-box", "boxpw", boxGrant)
                + user("runner-spy", "spypw", spyGrant) + "  ]\n}\n");
        nats.reload();
        await().atMost(WAIT).until(() -> nats.log().contains("Reloaded server configuration"));

        List<String> violations = new CopyOnWriteArrayList<>();
        BlockingQueue<String> spied = new LinkedBlockingQueue<>();
        List<String> others = List.of(
                "_INBOX.>", "_INBOX_baton.>", boxGrant.inboxPrefix() + ".>", NatsBroker.controlSubject("box"), ">");
        try (Connection spy = Nats.connect(new Options.Builder()
                .server(nats.url())
                .userInfo("runner-spy", "spypw")
                .inboxPrefix(spyGrant.inboxPrefix())
                .errorListener(new ErrorListener() {
                    @Override
                    public void errorOccurred(Connection conn, String error) {
                        violations.add(error);
                    }
                })
                .build())) {
            var listening = spy.createDispatcher(
                    m -> spied.add(m.getSubject() + " " + new String(m.getData(), StandardCharsets.UTF_8)));
            for (String subject : others) listening.subscribe(subject);
            spy.flush(Duration.ofSeconds(10));

            runner = new LeaseRunner(
                    MachineConfig.defaults("test").withSlots(1).withGrace(Duration.ofSeconds(5)),
                    new LeaseRunner.Target(
                            baton.url(),
                            "box",
                            RunnerKey.parse(box.get("key").asText()),
                            "nats://runner-box:boxpw@127.0.0.1:" + nats.port()),
                    new ProcessExecutor(
                            dir.resolve("box-work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true),
                    dir.resolve("box"),
                    Clock.systemUTC());
            threads.submit(runner::run);

            String done = submit(List.of("sh", "-c", "echo '{\"sort\":{\"latency\":{\"value\":1}}}'"));
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> status(done).equals("processed"));
            assertThat(job(done).at("/attempts/0/transport").asText()).isEqualTo("nats");

            // A cancel reaches the box on its control subject (and in its heartbeat answers); the spy hears none of it.
            String canceled = submit(List.of("sh", "-c", "exec sleep 300"));
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> status(canceled).equals("running"));
            baton.post("/v0/projects/bench/jobs/" + canceled + "/cancel", Map.of());
            await().atMost(WAIT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() ->
                            job(canceled).at("/attempts/0/outcome").asText().equals("canceled"));
            spy.flush(Duration.ofSeconds(10));

            assertThat(spied)
                    .as("the spy read nothing: no offer, reply or cancel of the box's")
                    .isEmpty();
            for (String subject : others) {
                assertThat(violations)
                        .as("nats-server refused the spy's subscription to " + subject)
                        .anyMatch(v -> v.contains("Permissions Violation for Subscription to \"" + subject + "\""));
            }
        }
    }

    String submit(List<String> cmd) {
        return baton.post(
                        "/v0/run",
                        Map.of("project", "bench", "spec", "host", "cmd", cmd, "timeout", 600, "adapter", "json"))
                .at("/job/uuid")
                .asText();
    }

    JsonNode job(String uuid) {
        return baton.get("/v0/projects/bench/jobs/" + uuid);
    }

    String status(String uuid) {
        return job(uuid).get("status").asText();
    }
}
