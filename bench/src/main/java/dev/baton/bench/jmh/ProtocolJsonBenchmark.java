package dev.baton.bench.jmh;

import dev.baton.api.JobView;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.job.JobStatus;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.web.http.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The rest of a job's JSON on the runner protocol and the API (issue 13): the server's {@code job}
 * message both ways (the server encodes it, a runner decodes it), a runner's {@code completed}
 * encoded, a strict API body decoded ({@code Json.decode}, here into a job's config), and the
 * answer to {@code POST /v0/run} encoded as {@code Json.write} does (a pending job's view).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProtocolJsonBenchmark {
    private final JobUuid job = JobUuid.random();
    private final LeaseId lease = LeaseId.random();
    private final Instant now = Instant.parse("2026-11-24T12:00:00.123456Z");
    private final JobConfig config = new JobConfig(
            "http://127.0.0.1:7700",
            ProjectUuid.random(),
            ImageDigest.of("sha256:" + "b".repeat(64)),
            null,
            List.of("bench", "--iterations", "1"),
            Map.of("MODE", "fast"),
            JobTimeout.of(60),
            List.of("out/result.json"),
            1);
    private final ServerMessage.Job jobMessage = new ServerMessage.Job(new ClaimedJob(
            job,
            lease,
            1,
            new SpecView(
                    SpecUuid.random(),
                    "bench",
                    "bench",
                    Architecture.X86_64,
                    2,
                    1L << 30,
                    10L << 30,
                    false,
                    now,
                    now,
                    null),
            config,
            "token-" + "x".repeat(40),
            60,
            now));
    private final String jobJson = Wire.encode(jobMessage);
    private final RunnerMessage.Completed completed = new RunnerMessage.Completed(
            job,
            lease,
            List.of(new IterationResult(
                    0, "{\"sort\":{\"latency\":{\"value\":12.5}}}", "", Map.of("out/result.json", "{\"a\":1}"))));
    private final byte[] configBody = Wire.encode(config).getBytes(StandardCharsets.UTF_8);
    private final byte[] configBodyNonAscii = Wire.encode(new JobConfig(
                    "http://127.0.0.1:7700",
                    config.project(),
                    config.digest(),
                    null,
                    List.of("bench", "--label", "Grüße"),
                    Map.of("MODE", "fast"),
                    JobTimeout.of(60),
                    List.of("out/result.json"),
                    1))
            .getBytes(StandardCharsets.UTF_8);

    private final JobView submitted = new JobView(
            job,
            ProjectUuid.random(),
            ReportUuid.random(),
            SpecUuid.random(),
            null,
            JobStatus.PENDING,
            0,
            60,
            config,
            0,
            0,
            null,
            null,
            null,
            null,
            null,
            now,
            now,
            null,
            null,
            null,
            null,
            3,
            now,
            null,
            null,
            null,
            null,
            null,
            null,
            null);

    @Benchmark
    public byte[] encodeRunAnswer() throws Exception {
        return Wire.mapper().writeValueAsBytes(submitted);
    }

    @Benchmark
    public String encodeJob() {
        return Wire.encode(jobMessage);
    }

    @Benchmark
    public ServerMessage decodeJob() {
        return Wire.decodeServerMessage(jobJson);
    }

    @Benchmark
    public String encodeCompleted() {
        return Wire.encode(completed);
    }

    @Benchmark
    public JobConfig decodeApiBody() {
        return Json.decode(configBody, JobConfig.class);
    }

    @Benchmark
    public JobConfig decodeApiBodyNonAscii() {
        return Json.decode(configBodyNonAscii, JobConfig.class);
    }
}
