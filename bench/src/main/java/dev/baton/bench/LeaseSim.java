package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.broker.NatsBroker;
import dev.baton.protocol.message.Wire;
import io.nats.client.Connection;
import io.nats.client.JetStreamSubscription;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PullSubscribeOptions;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * A simulated transport-A runner of one slot (docs/protocol.md, "Transport A"): it waits in a
 * pull on its spec's durable consumer, and for each {@code LeaseGranted} posts {@code AckLease}
 * and, once accepted, {@code Complete} at once, then acks the message, as Baton's runner does. It
 * tells {@code arrival} the {@link System#nanoTime} at which each offer reached it.
 */
final class LeaseSim implements AutoCloseable {
    private final Connection nats;
    private final JetStreamSubscription sub;
    private final HttpClient http = BenchServer.newHttpClient();
    private final String baseUrl;
    private final BenchServer.Credentials runner;
    private final LongConsumer arrival;
    private final AtomicLong problems = new AtomicLong();
    private final Thread loop;
    private volatile boolean closed;

    private LeaseSim(
            Connection nats,
            JetStreamSubscription sub,
            String baseUrl,
            BenchServer.Credentials runner,
            LongConsumer arrival) {
        this.nats = nats;
        this.sub = sub;
        this.baseUrl = baseUrl;
        this.runner = runner;
        this.arrival = arrival;
        this.loop =
                Thread.ofPlatform().daemon().name("lease-sim-" + runner.slug()).start(this::run);
    }

    /** Connects and binds to the spec's consumer, which the server makes once the spec exists (waits up to 30 s for it). */
    static LeaseSim start(
            BenchServer server, String natsUrl, String spec, BenchServer.Credentials runner, LongConsumer arrival)
            throws Exception {
        Connection nats = Nats.connect(new Options.Builder()
                .server(natsUrl)
                .connectionName("bench-" + runner.slug())
                .build());
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            try {
                JetStreamSubscription sub = nats.jetStream()
                        .subscribe(
                                NatsBroker.leaseSubject(spec),
                                PullSubscribeOptions.bind(NatsBroker.STREAM, NatsBroker.consumer(spec)));
                return new LeaseSim(nats, sub, server.baseUrl(), runner, arrival);
            } catch (Exception notYet) {
                if (Instant.now().isAfter(deadline)) {
                    nats.close();
                    throw new IllegalStateException(
                            "the server made no consumer for spec " + spec + " within 30 s", notYet);
                }
                Thread.sleep(100);
            }
        }
    }

    long problems() {
        return problems.get();
    }

    private void run() {
        while (!closed) {
            List<Message> got;
            try {
                got = sub.fetch(1, Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                if (!closed) problems.incrementAndGet();
                continue;
            }
            for (Message m : got) {
                arrival.accept(System.nanoTime());
                try {
                    handle(m);
                } catch (RuntimeException e) {
                    problems.incrementAndGet();
                    m.nak();
                }
            }
        }
    }

    private void handle(Message m) {
        JsonNode granted = readTree(m);
        String lease = granted.get("lease_id").asText();
        JsonNode answer = BenchServer.post(
                http,
                baseUrl,
                runner.key(),
                path("ack"),
                Map.of(
                        "type",
                        "AckLease",
                        "job_id",
                        granted.get("job_id").asText(),
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.slug(),
                        "accepted_at",
                        Instant.now().toString()));
        if (!"LeaseAccepted".equals(answer.path("type").asText())) {
            problems.incrementAndGet();
            m.term();
            return;
        }
        m.ack();
        JsonNode done = BenchServer.post(
                http,
                baseUrl,
                runner.key(),
                path("complete"),
                Map.of(
                        "type",
                        "Complete",
                        "lease_id",
                        lease,
                        "runner_id",
                        runner.slug(),
                        "status",
                        "SUCCEEDED",
                        "exit_code",
                        0,
                        "summary",
                        "bench",
                        "results",
                        List.of(Map.of("exit_code", 0, "stdout", "", "stderr", ""))));
        if (!done.path("accepted").asBoolean()) problems.incrementAndGet();
    }

    private String path(String message) {
        return "/v0/runners/" + runner.slug() + "/leases/" + message;
    }

    private static JsonNode readTree(Message m) {
        try {
            return Wire.mapper().readTree(new String(m.getData(), StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("not JSON: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        loop.join(10_000);
        http.shutdownNow();
        nats.close();
    }
}
