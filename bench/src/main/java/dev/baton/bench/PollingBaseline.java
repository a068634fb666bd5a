package dev.baton.bench;

import dev.baton.protocol.id.ResourceId;
import dev.baton.store.Job;
import dev.baton.store.Store;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Measurement 5: the seed's dispatch, a runner that calls claim every second until it gets a
 * job (Bencher's 1-second polling loop), run against the same server's store. Latency from the
 * start of POST /v0/run to the claim returning the job. Samples are submitted at random phases
 * of the poll cycle, so the expected median is about half the interval.
 */
final class PollingBaseline {
    static final long INTERVAL_MS = 1_000;

    private PollingBaseline() {}

    static Summary run(BenchServer server, int samples) throws Exception {
        String spec = "polling";
        server.createSpec(spec);
        BenchServer.Credentials creds = server.createRunner("polling", spec);
        Store store = server.store().store();
        long runnerId = store.runners()
                .findRunner(ResourceId.of(creds.slug()))
                .orElseThrow()
                .id();
        BlockingQueue<Long> claims = new LinkedBlockingQueue<>();
        Thread poller = Thread.ofPlatform().name("bench-poller").daemon().start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Optional<Job> job = OneClaim.claim(store, runnerId, Instant.now());
                    if (job.isEmpty()) {
                        Thread.sleep(INTERVAL_MS);
                        continue;
                    }
                    claims.add(System.nanoTime());
                    Job j = job.get();
                    // Finish it the way the seed runner would, so nothing stays in flight.
                    store.transitions().start(j.uuid(), j.lease(), Instant.now());
                    store.transitions().complete(j.uuid(), j.lease(), Instant.now());
                    store.transitions().process(j.uuid(), "[]", Instant.now());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            long[] latency = new long[samples];
            for (int i = 0; i < samples; i++) {
                Thread.sleep(ThreadLocalRandom.current().nextLong(INTERVAL_MS));
                long t0 = System.nanoTime();
                server.submit(spec);
                Long claimed = claims.poll(30, TimeUnit.SECONDS);
                if (claimed == null) throw new IllegalStateException("the polling runner claimed nothing within 30 s");
                latency[i] = claimed - t0;
            }
            return Summary.ofNanos(latency);
        } finally {
            poller.interrupt();
            poller.join(5_000);
        }
    }
}
