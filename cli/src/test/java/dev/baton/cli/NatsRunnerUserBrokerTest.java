package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.broker.NatsBroker;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import io.nats.client.api.AckPolicy;
import io.nats.client.api.ConsumerConfiguration;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated grant on a real nats-server (Debian's binary): the runner pulls and acks on its
 * spec's consumer and hears its control subject, and cannot pull from another spec's consumer.
 */
@Tag("nats")
class NatsRunnerUserBrokerTest {
    static final Path BINARY = Path.of(System.getenv().getOrDefault("BATON_TEST_NATS_SERVER", "/usr/sbin/nats-server"));

    @TempDir
    Path dir;

    Process nats;

    @AfterEach
    void stop() throws InterruptedException {
        if (nats != null) {
            nats.destroy();
            nats.waitFor();
        }
    }

    @Test
    void theRunnerUserPullsItsOwnSpecOnlyAndHearsItsControlSubject() throws Exception {
        assumeTrue(Files.isExecutable(BINARY), "no nats-server at " + BINARY);
        NatsRunnerUser runner = NatsRunnerUser.of("box", List.of("gpu"), "runnerpw");
        String block = runner.authorization()
                .replace(
                        "  users = [\n",
                        "  users = [\n    { user: \"baton-server\", password: \"serverpw\", permissions: { publish: [\">\"], subscribe: [\">\"] } }\n");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = dir.resolve("nats.conf");
        Files.writeString(
                conf,
                "listen: 127.0.0.1:" + port + "\njetstream { store_dir: \"" + dir.resolve("js") + "\" }\n" + block);
        nats = new ProcessBuilder(BINARY.toString(), "-c", conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats.log").toFile())
                .start();
        awaitListening(port);

        try (Connection server = connect(port, "baton-server", "serverpw", null);
                Connection box = connect(port, "runner-box", "runnerpw", runner.inboxPrefix())) {
            // What the server does: the stream, a consumer per spec, an offer, a cancel.
            JetStreamManagement jsm = server.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(NatsBroker.STREAM)
                    .subjects(NatsBroker.LEASES + ">")
                    .retentionPolicy(RetentionPolicy.WorkQueue)
                    .storageType(StorageType.File)
                    .build());
            for (String spec : List.of("gpu", "other")) {
                jsm.addOrUpdateConsumer(
                        NatsBroker.STREAM,
                        ConsumerConfiguration.builder()
                                .durable(NatsBroker.consumer(spec))
                                .filterSubject(NatsBroker.leaseSubject(spec))
                                .ackPolicy(AckPolicy.Explicit)
                                .build());
            }
            server.jetStream().publish(NatsBroker.leaseSubject("gpu"), "offer".getBytes(StandardCharsets.UTF_8));

            // What the runner's LeaseQueue does: bind to the consumer, pull, ack; listen on its control subject.
            BlockingQueue<String> control = new ArrayBlockingQueue<>(1);
            box.createDispatcher()
                    .subscribe(
                            NatsBroker.controlSubject("box"),
                            m -> control.add(new String(m.getData(), StandardCharsets.UTF_8)));
            box.flush(Duration.ofSeconds(10));
            JetStreamSubscription pull = box.jetStream()
                    .subscribe(
                            NatsBroker.leaseSubject("gpu"),
                            PullSubscribeOptions.builder().stream(NatsBroker.STREAM)
                                    .durable(NatsBroker.consumer("gpu"))
                                    .build());
            List<Message> got = pull.fetch(1, Duration.ofSeconds(10));
            assertThat(got).hasSize(1);
            assertThat(new String(got.get(0).getData(), StandardCharsets.UTF_8)).isEqualTo("offer");
            got.get(0).ackSync(Duration.ofSeconds(10));
            assertThat(jsm.getConsumerInfo(NatsBroker.STREAM, NatsBroker.consumer("gpu"))
                            .getNumAckPending())
                    .isZero();

            server.publish(NatsBroker.controlSubject("box"), "cancel".getBytes(StandardCharsets.UTF_8));
            assertThat(control.poll(10, TimeUnit.SECONDS)).isEqualTo("cancel");

            // Another spec's consumer is not the runner's to pull from.
            assertThatThrownBy(() -> box.jetStream()
                            .subscribe(
                                    NatsBroker.leaseSubject("other"),
                                    PullSubscribeOptions.builder().stream(NatsBroker.STREAM)
                                            .durable(NatsBroker.consumer("other"))
                                            .build()))
                    .isInstanceOf(Exception.class);
        }
    }

    /**
     * Issue 40: two runners of different specs on one broker. The spy, with the grant printed for
     * it, tries to read the other runner's pulled offers (its inbox, the shared {@code _INBOX.>},
     * everything), its control subject, and to pull or ack its consumer: each is refused by
     * nats-server and nothing of the other runner's reaches it, while the other runner pulls,
     * acks and hears its cancel with its own grant.
     */
    @Test
    void aRunnerReadsNoOtherRunnersOffersControlOrReplies() throws Exception {
        assumeTrue(Files.isExecutable(BINARY), "no nats-server at " + BINARY);
        NatsRunnerUser box = NatsRunnerUser.of("box", List.of("gpu"), "boxpw");
        NatsRunnerUser spy = NatsRunnerUser.of("spy", List.of("other"), "spypw");
        String users = box.authorization()
                .replace(
                        "  users = [\n",
                        "  users = [\n    { user: \"baton-server\", password: \"serverpw\", permissions: { publish: [\">\"], subscribe: [\">\"] } }\n");
        String spyUser = spy.authorization();
        users = users.replace(
                "  ]\n}\n", spyUser.substring(spyUser.indexOf("    # "), spyUser.indexOf("  ]\n}")) + "  ]\n}\n");
        int port = startNats(users);

        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        BlockingQueue<String> spied = new java.util.concurrent.LinkedBlockingQueue<>();
        try (Connection server = connect(port, "baton-server", "serverpw", null);
                Connection boxConn = connect(port, "runner-box", "boxpw", box.inboxPrefix());
                Connection spyConn = Nats.connect(new Options.Builder()
                        .server("nats://127.0.0.1:" + port)
                        .userInfo("runner-spy", "spypw")
                        .inboxPrefix(spy.inboxPrefix())
                        .errorListener(new io.nats.client.ErrorListener() {
                            @Override
                            public void errorOccurred(Connection conn, String error) {
                                violations.add(error);
                            }
                        })
                        .build())) {
            JetStreamManagement jsm = server.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder()
                    .name(NatsBroker.STREAM)
                    .subjects(NatsBroker.LEASES + ">")
                    .retentionPolicy(RetentionPolicy.WorkQueue)
                    .storageType(StorageType.File)
                    .build());
            for (String spec : List.of("gpu", "other")) {
                jsm.addOrUpdateConsumer(
                        NatsBroker.STREAM,
                        ConsumerConfiguration.builder()
                                .durable(NatsBroker.consumer(spec))
                                .filterSubject(NatsBroker.leaseSubject(spec))
                                .ackPolicy(AckPolicy.Explicit)
                                .build());
            }

            // The spy listens wherever the box's offers, replies and cancels could pass.
            var listening = spyConn.createDispatcher(
                    m -> spied.add(m.getSubject() + " " + new String(m.getData(), StandardCharsets.UTF_8)));
            List<String> others = List.of(
                    "_INBOX.>",
                    "_INBOX_baton.>",
                    box.inboxPrefix() + ".>",
                    NatsBroker.controlSubject("box"),
                    "$JS.ACK.>",
                    ">");
            for (String subject : others) listening.subscribe(subject);
            spyConn.flush(Duration.ofSeconds(10));
            // Nor may it pull from or answer on the box's consumer (its replies would come to its own inbox).
            spyConn.publish(
                    "$JS.API.CONSUMER.MSG.NEXT." + NatsBroker.STREAM + "." + NatsBroker.consumer("gpu"),
                    spy.inboxPrefix() + ".steal",
                    "{\"batch\":1}".getBytes(StandardCharsets.UTF_8));
            spyConn.flush(Duration.ofSeconds(10));

            server.jetStream()
                    .publish(
                            NatsBroker.leaseSubject("gpu"),
                            "{\"lease_id\":\"secret-lease\"}".getBytes(StandardCharsets.UTF_8));
            BlockingQueue<String> control = new ArrayBlockingQueue<>(1);
            boxConn.createDispatcher()
                    .subscribe(
                            NatsBroker.controlSubject("box"),
                            m -> control.add(new String(m.getData(), StandardCharsets.UTF_8)));
            boxConn.flush(Duration.ofSeconds(10));
            JetStreamSubscription pull = boxConn.jetStream()
                    .subscribe(
                            NatsBroker.leaseSubject("gpu"),
                            PullSubscribeOptions.builder().stream(NatsBroker.STREAM)
                                    .durable(NatsBroker.consumer("gpu"))
                                    .build());
            List<Message> got = pull.fetch(1, Duration.ofSeconds(10));
            assertThat(got).as("the box pulls its offer under its own grant").hasSize(1);
            assertThat(pull.getSubject())
                    .as("its pulls are answered on its own inbox")
                    .startsWith(box.inboxPrefix() + ".");
            got.get(0).ackSync(Duration.ofSeconds(10));
            server.publish(NatsBroker.controlSubject("box"), "cancel".getBytes(StandardCharsets.UTF_8));
            assertThat(control.poll(10, TimeUnit.SECONDS)).isEqualTo("cancel");
            spyConn.flush(Duration.ofSeconds(10));

            assertThat(spied.poll(1, TimeUnit.SECONDS))
                    .as("the spy read nothing of the box's")
                    .isNull();
            for (String subject : others) {
                assertThat(violations)
                        .as("nats-server refused the spy's subscription to " + subject)
                        .anyMatch(v -> v.contains("Permissions Violation for Subscription to \"" + subject + "\""));
            }
            assertThat(violations)
                    .as("and its pull on the box's consumer")
                    .anyMatch(
                            v -> v.contains(
                                    "Permissions Violation for Publish to \"$JS.API.CONSUMER.MSG.NEXT.BATON_LEASES.baton-gpu\""));
        }
    }

    private int startNats(String authorization) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = dir.resolve("nats.conf");
        Files.writeString(
                conf,
                "listen: 127.0.0.1:" + port + "\njetstream { store_dir: \"" + dir.resolve("js") + "\" }\n"
                        + authorization);
        nats = new ProcessBuilder(BINARY.toString(), "-c", conf.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats.log").toFile())
                .start();
        awaitListening(port);
        return port;
    }

    private static Connection connect(int port, String user, String password, String inboxPrefix)
            throws IOException, InterruptedException {
        Options.Builder options =
                new Options.Builder().server("nats://127.0.0.1:" + port).userInfo(user, password);
        if (inboxPrefix != null) options.inboxPrefix(inboxPrefix);
        return Nats.connect(options.build());
    }

    private static void awaitListening(int port) throws InterruptedException {
        for (int i = 0; i < 400; i++) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IllegalStateException("nats-server did not listen on " + port);
    }
}
