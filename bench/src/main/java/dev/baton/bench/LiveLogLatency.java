package dev.baton.bench;

import dev.baton.protocol.model.ClaimedJob;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench/run cluster}: live log latency (docs/decisions/0016-cross-node-live.md). A runner on
 * node 1 holds a running job and sends one line of stdout at a time; two followers read the job's
 * log ({@code ?follow=true}): one on node 1, one on node 2, whose node fetches the entries from
 * node 1 (a long poll). Measured per entry: the runner's send → the entry's SSE event at each
 * follower. Sequential: the next line is sent once both followers got the previous one.
 */
final class LiveLogLatency {
    record Result(Summary sameNode, Summary acrossNodes, int warmup) {}

    private LiveLogLatency() {}

    static Result run(BenchServer runnerNode, BenchServer otherNode, int samples, int warmup) throws Exception {
        runnerNode.createSpec("logs");
        BenchServer.Credentials creds = runnerNode.createRunner("logs", "logs");
        BlockingQueue<SimRunner.Arrival> arrivals = new LinkedBlockingQueue<>();
        try (Runners runners = new Runners(1)) {
            SimRunner runner = new SimRunner(SimRunner.Mode.HOLD, 1, arrivals::add, null);
            runner.connect(runners.client(), runnerNode.channel(creds.slug()), creds.key())
                    .get(30, TimeUnit.SECONDS);
            runner.ready();
            String job = runnerNode.submit("logs");
            SimRunner.Arrival arrival = arrivals.poll(30, TimeUnit.SECONDS);
            if (arrival == null) throw new IllegalStateException("job " + job + " did not reach the runner");
            ClaimedJob claimed = arrival.job();
            DispatchLatency.awaitAtLeast(runner::held, 1);
            String path = "/v0/projects/" + BenchServer.PROJECT + "/jobs/" + job + "/logs?follow=true";
            Follower here = new Follower(runnerNode.stream(path));
            Follower there = new Follower(otherNode.stream(path));
            long[] same = new long[samples];
            long[] across = new long[samples];
            for (int i = -warmup; i < samples; i++) {
                long seq = i + warmup + 1;
                long t0 = System.nanoTime();
                runner.log(claimed, seq, "line " + seq + "\n");
                long atHere = here.await(seq);
                long atThere = there.await(seq);
                if (i >= 0) {
                    same[i] = atHere - t0;
                    across[i] = atThere - t0;
                }
            }
            here.close();
            there.close();
            runner.close();
            return new Result(Summary.ofNanos(same), Summary.ofNanos(across), warmup);
        }
    }

    /** One follower's SSE stream, read on its own thread: when each entry's event arrived. */
    private static final class Follower {
        private final HttpResponse<InputStream> response;
        private final Map<Long, Long> arrived = new ConcurrentHashMap<>();

        Follower(HttpResponse<InputStream> response) {
            if (response.statusCode() != 200)
                throw new IllegalStateException("follow answered " + response.statusCode());
            this.response = response;
            Thread.ofPlatform().daemon().name("bench-log-follower").start(() -> {
                try (BufferedReader r =
                        new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        if (line.startsWith("id: ")) arrived.put(Long.parseLong(line.substring(4)), System.nanoTime());
                    }
                } catch (Exception e) {
                    // closed at the end of the run
                }
            });
        }

        long await(long seq) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Long at;
            while ((at = arrived.get(seq)) == null) {
                if (System.nanoTime() > deadline)
                    throw new IllegalStateException("log entry " + seq + " did not reach a follower within 30 s");
                Thread.onSpinWait();
            }
            return at;
        }

        void close() throws Exception {
            response.body().close();
        }
    }
}
