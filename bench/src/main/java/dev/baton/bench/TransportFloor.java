package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Measurement 2f, the transport floor (issue 13): the lifecycle phase, same harness code (the
 * same submitters, {@link SimRunner}s, runner and job counts and clock), against a
 * {@link FloorServer} instead of the real server: the same HTTP and WebSocket stack and JSON
 * codec carrying the same messages, with no store and no Baton server logic. It is what that
 * stack and this in-process harness cost for one job's traffic, so lifecycle/floor is the most
 * the server can reach here, and floor/raw says whether a target relative to the raw ceiling is
 * reachable with this stack at all. Like the lifecycle phase, the CPU figure includes the
 * harness (submitters and simulated runners share the process).
 */
final class TransportFloor {
    /** The floor's run, and the sizes of the answers it sends (as the real server's, sampled). */
    record Result(LifecycleThroughput.Result floor, int runAnswerBytes, int jobMessageBytes) {}

    private static final String SAMPLE_SPEC = "floor-sample";

    private TransportFloor() {}

    /**
     * One real {@code POST /v0/run} answer and one real {@code job} message from the real server:
     * a runner of its own takes one job through the whole lifecycle, and the job is processed
     * before this returns (so no later phase counts it).
     */
    static FloorServer.Sample capture(BenchServer server) throws Exception {
        server.createSpec(SAMPLE_SPEC);
        BenchServer.Credentials c = server.createRunner(SAMPLE_SPEC, SAMPLE_SPEC);
        CompletableFuture<ClaimedJob> claimed = new CompletableFuture<>();
        try (Runners client = new Runners(1)) {
            SimRunner runner = new SimRunner(SimRunner.Mode.COMPLETE, 1, a -> claimed.complete(a.job()), null);
            runner.connect(client.client(), server.channel(c.slug()), c.key()).get(30, TimeUnit.SECONDS);
            long processedBefore = server.processed();
            runner.ready();
            JsonNode answer = server.post("/v0/run", BenchServer.runBody(SAMPLE_SPEC));
            ClaimedJob job = claimed.get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.processed() <= processedBefore && System.nanoTime() < deadline) Thread.sleep(2);
            runner.close();
            if (!answer.at("/job/uuid").asText().equals(job.uuid().value().toString())) {
                throw new IllegalStateException(
                        "the sampled job is not the submitted one: " + answer.at("/job/uuid") + " vs " + job.uuid());
            }
            return new FloorServer.Sample(answer, job);
        }
    }

    static Result run(FloorServer.Sample sample, int runners, int slots, int jobs) throws Exception {
        try (FloorServer floor = FloorServer.start(sample, BenchServer.REQUEST_BODY_MAX_BYTES)) {
            LifecycleThroughput.Result r = LifecycleThroughput.run(floor, runners, slots, jobs);
            return new Result(
                    r,
                    Wire.mapper().writeValueAsBytes(sample.runAnswer()).length,
                    Wire.encode(new ServerMessage.Job(sample.job())).getBytes(StandardCharsets.UTF_8).length);
        }
    }

    /**
     * Measurement 1f: dispatch latency (as {@link DispatchLatency}, one idle waiting runner, one
     * job at a time) against the floor: what the HTTP and WebSocket stack and this harness take
     * from the start of {@code POST /v0/run} to the {@code job} message with no store and no
     * server logic, the least the real server's figure can be on this machine.
     */
    static DispatchLatency.Result dispatch(FloorServer.Sample sample, int samples, int warmup) throws Exception {
        try (FloorServer floor = FloorServer.start(sample, BenchServer.REQUEST_BODY_MAX_BYTES)) {
            return DispatchLatency.run(floor, floor, "floor-dispatch", samples, warmup);
        }
    }

    /**
     * {@code bench floor}: the floor alone, for a profile of it (the real server runs only to
     * sample its answers). Prints the table; writes no results file.
     */
    static void runAlone(BenchOptions o) throws Exception {
        java.nio.file.Path work = java.nio.file.Files.createTempDirectory("baton-bench-floor-");
        List<String[]> table = new ArrayList<>();
        try (BenchDatabase database = new BenchDatabase(o.database(), o.pgUrl(), o.pgUser());
                BenchServer server = BenchServer.start(work.resolve("server"), database.freshUrl())) {
            FloorServer.Sample sample = capture(server);
            for (int r : o.runners()) {
                Bench.log("transport floor: " + r + " runners x " + o.slots() + " slots, " + o.jobs() + " jobs");
                table.add(Bench.row(
                        "2f transport floor R=" + r + " S=" + o.slots(),
                        describe(run(sample, r, o.slots(), o.jobs()))));
            }
        } finally {
            Bench.deleteQuietly(work);
        }
        Bench.printTable(table);
    }

    static String describe(Result f) {
        LifecycleThroughput.Result t = f.floor();
        return t.jobsPerSecond() + " jobs/s (" + t.jobs() + " jobs in " + t.seconds() + " s, " + t.submitters()
                + " submitters"
                + (t.finished() ? "" : ", UNFINISHED")
                + (t.problems() > 0 ? ", " + t.problems() + " protocol problems" : "")
                + "; answers of " + f.runAnswerBytes() + " B and job messages of " + f.jobMessageBytes() + " B; "
                + Bench.use(t.resources(), t.jobsPerSecond()) + ")";
    }
}
