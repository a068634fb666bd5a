package dev.baton.bench.jmh;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** The channel's per-message cost: decoding what runners send and encoding the server's replies. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WireBenchmark {
    private final JobUuid job = JobUuid.random();
    private final LeaseId lease = LeaseId.random();
    private final String bareHeartbeat = "{\"event\":\"heartbeat\"}";
    private final String jobHeartbeat = Wire.encode(new RunnerMessage.Heartbeat(job, lease));
    private final String completed = Wire.encode(new RunnerMessage.Completed(
            job,
            lease,
            List.of(new IterationResult(
                    0, "{\"sort\":{\"latency\":{\"value\":12.5}}}", "", Map.of("out/result.json", "{\"a\":1}")))));
    private final ServerMessage.Ack ack = new ServerMessage.Ack(job);

    @Benchmark
    public RunnerMessage decodeBareHeartbeat() {
        return Wire.decodeRunnerMessage(bareHeartbeat);
    }

    @Benchmark
    public RunnerMessage decodeJobHeartbeat() {
        return Wire.decodeRunnerMessage(jobHeartbeat);
    }

    @Benchmark
    public RunnerMessage decodeCompleted() {
        return Wire.decodeRunnerMessage(completed);
    }

    @Benchmark
    public String encodeAck() {
        return Wire.encode(ack);
    }
}
