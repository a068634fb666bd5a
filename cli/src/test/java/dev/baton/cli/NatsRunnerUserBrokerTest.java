package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.server.broker.NatsBroker;
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
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StorageType;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated grant on a real nats-server (Debian's binary): the runner pulls and acks on its
 * spec's consumer and hears its control subject, and cannot pull from another spec's consumer.
 */
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
        String block = runner.authorization().replace("  users = [\n",
                "  users = [\n    { user: \"baton-server\", password: \"serverpw\", permissions: { publish: [\">\"], subscribe: [\">\"] } }\n");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path conf = dir.resolve("nats.conf");
        Files.writeString(conf, "listen: 127.0.0.1:" + port + "\njetstream { store_dir: \"" + dir.resolve("js") + "\" }\n" + block);
        nats = new ProcessBuilder(BINARY.toString(), "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats.log").toFile()).start();
        awaitListening(port);

        try (Connection server = connect(port, "baton-server", "serverpw"); Connection box = connect(port, "runner-box", "runnerpw")) {
            // What the server does: the stream, a consumer per spec, an offer, a cancel.
            JetStreamManagement jsm = server.jetStreamManagement();
            jsm.addStream(StreamConfiguration.builder().name(NatsBroker.STREAM).subjects(NatsBroker.LEASES + ">")
                    .retentionPolicy(RetentionPolicy.WorkQueue).storageType(StorageType.File).build());
            for (String spec : List.of("gpu", "other")) {
                jsm.addOrUpdateConsumer(NatsBroker.STREAM, ConsumerConfiguration.builder().durable(NatsBroker.consumer(spec))
                        .filterSubject(NatsBroker.leaseSubject(spec)).ackPolicy(AckPolicy.Explicit).build());
            }
            server.jetStream().publish(NatsBroker.leaseSubject("gpu"), "offer".getBytes(StandardCharsets.UTF_8));

            // What the runner's LeaseQueue does: bind to the consumer, pull, ack; listen on its control subject.
            BlockingQueue<String> control = new ArrayBlockingQueue<>(1);
            box.createDispatcher().subscribe(NatsBroker.controlSubject("box"), m -> control.add(new String(m.getData(), StandardCharsets.UTF_8)));
            box.flush(Duration.ofSeconds(10));
            JetStreamSubscription pull = box.jetStream().subscribe(NatsBroker.leaseSubject("gpu"),
                    PullSubscribeOptions.builder().stream(NatsBroker.STREAM).durable(NatsBroker.consumer("gpu")).build());
            List<Message> got = pull.fetch(1, Duration.ofSeconds(10));
            assertThat(got).hasSize(1);
            assertThat(new String(got.get(0).getData(), StandardCharsets.UTF_8)).isEqualTo("offer");
            got.get(0).ackSync(Duration.ofSeconds(10));
            assertThat(jsm.getConsumerInfo(NatsBroker.STREAM, NatsBroker.consumer("gpu")).getNumAckPending()).isZero();

            server.publish(NatsBroker.controlSubject("box"), "cancel".getBytes(StandardCharsets.UTF_8));
            assertThat(control.poll(10, TimeUnit.SECONDS)).isEqualTo("cancel");

            // Another spec's consumer is not the runner's to pull from.
            assertThatThrownBy(() -> box.jetStream().subscribe(NatsBroker.leaseSubject("other"),
                    PullSubscribeOptions.builder().stream(NatsBroker.STREAM).durable(NatsBroker.consumer("other")).build()))
                    .isInstanceOf(Exception.class);
        }
    }

    private static Connection connect(int port, String user, String password) throws IOException, InterruptedException {
        return Nats.connect(new Options.Builder().server("nats://127.0.0.1:" + port).userInfo(user, password).build());
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
