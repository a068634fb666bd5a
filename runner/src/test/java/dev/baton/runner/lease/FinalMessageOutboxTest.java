package dev.baton.runner.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.baton.channelclient.outbox.FinalLeaseMessage;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.RunnerKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How long a final word is kept: a server that cannot take it (5xx) is tried again without end,
 * one that refuses it (4xx) at most {@code maxRefusals} times. An HTTP server stands in for Baton
 * here, to answer what the real one answers only in rare states (the lease runner's contract
 * covers the real server's CompleteAck and StaleLease); time is a clock the test moves.
 */
class FinalMessageOutboxTest {
    private static final int MAX_REFUSALS = 3;
    private static final Duration BACKOFF_MAX = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private HttpServer http;
    private final AtomicInteger posts = new AtomicInteger();
    private final AtomicReference<Integer> status = new AtomicReference<>(503);
    private final AtomicReference<String> body = new AtomicReference<>("{\"code\":\"unavailable\"}");
    private final MovedClock clock = new MovedClock();
    private Outbox outbox;
    private FinalMessageOutbox words;

    @BeforeEach
    void start() throws Exception {
        http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] answer = body.get().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status.get(), answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
            posts.incrementAndGet();
        });
        http.start();
        outbox = new Outbox(dir.resolve("outbox"));
        var server = new LeaseServer(
                HttpClient.newHttpClient(),
                URI.create("http://127.0.0.1:" + http.getAddress().getPort()),
                "r1",
                RunnerKey.generate());
        words = new FinalMessageOutbox(outbox, server, clock, Duration.ofMillis(500), BACKOFF_MAX, MAX_REFUSALS);
    }

    @AfterEach
    void stop() {
        if (http != null) http.stop(0);
    }

    private FinalLeaseMessage complete() throws Exception {
        return new FinalLeaseMessage(
                "job-1", 1, "complete", Wire.mapper().readTree("{\"type\":\"Complete\",\"lease_id\":\"x\"}"), 0);
    }

    /** One round: sends what is due and waits for the server to have answered it. */
    private void round() {
        int before = posts.get();
        clock.move(BACKOFF_MAX);
        words.sendDue();
        await().atMost(Duration.ofSeconds(10)).until(() -> posts.get() > before);
        // the runner handles the answer after the server counted it
        await().atMost(Duration.ofSeconds(10)).until(words::idle);
    }

    @Test
    void aServerThatCannotTakeItNowIsTriedAgainWithoutEndAndTheWordStaysOnDisk() throws Exception {
        words.add(complete());
        for (int i = 0; i < MAX_REFUSALS * 3; i++) round();
        assertThat(outbox.leaseWords()).as("a 5xx is no refusal: kept").hasSize(1);
        assertThat(words.size()).isEqualTo(1);

        status.set(200);
        body.set("{\"type\":\"CompleteAck\",\"lease_id\":\"x\",\"accepted\":true}");
        round();
        await().atMost(Duration.ofSeconds(10)).until(() -> words.size() == 0);
        assertThat(outbox.leaseWords()).as("answered: gone from disk").isEmpty();
    }

    @Test
    void aWordTheServerRefusesIsDroppedAfterMaxSendsRefusalsCountedAcrossRestarts() throws Exception {
        status.set(400);
        body.set("{\"code\":\"invalid_message\",\"message\":\"no\"}");
        words.add(complete());
        round();
        assertThat(outbox.leaseWords())
                .singleElement()
                .satisfies(w -> assertThat(w.refusals()).isEqualTo(1));

        // A restarted agent knows how often it was refused already.
        var again = new FinalMessageOutbox(
                outbox,
                new LeaseServer(
                        HttpClient.newHttpClient(),
                        URI.create("http://127.0.0.1:" + http.getAddress().getPort()),
                        "r1",
                        RunnerKey.generate()),
                clock,
                Duration.ofMillis(500),
                BACKOFF_MAX,
                MAX_REFUSALS);
        again.recover();
        words = again;
        for (int i = 1; i < MAX_REFUSALS; i++) round();
        await().atMost(Duration.ofSeconds(10)).until(() -> words.size() == 0);
        assertThat(outbox.leaseWords())
                .as("dropped after %d refusals", MAX_REFUSALS)
                .isEmpty();
        assertThat(posts.get()).isEqualTo(MAX_REFUSALS);
    }

    /** A clock the test moves by hand. */
    static final class MovedClock extends Clock {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

        void move(Duration by) {
            now.updateAndGet(t -> t.plus(by));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }
}
