package dev.baton.runner.lease;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.ClaimedJob;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A {@code LeaseGranted} pulled from a spec's queue: seed 003's fields, and Baton's job under
 * {@code job_spec.baton} (the runner channel's {@code job}, which the executors run). An offer
 * whose Baton job does not carry the very lease of the message is refused: the executors fence
 * their work with the job's lease.
 */
record LeaseGrant(
        String leaseId,
        String jobId,
        ClaimedJob job,
        Duration leaseTtl,
        Duration heartbeatInterval,
        long maxRuntimeSeconds) {

    static LeaseGrant parse(byte[] message) throws IOException {
        JsonNode m = Wire.mapper().readTree(new String(message, StandardCharsets.UTF_8));
        if (!"LeaseGranted".equals(m.path("type").asText()))
            throw new IOException("not a LeaseGranted: type " + m.path("type"));
        String lease = m.path("lease_id").asText(null);
        if (lease == null || lease.isBlank()) throw new IOException("LeaseGranted without lease_id");
        JsonNode baton = m.at("/job_spec/baton");
        if (baton.isMissingNode() || baton.isNull())
            throw new IOException("LeaseGranted without job_spec.baton (not a Baton job)");
        ClaimedJob job = Wire.mapper().treeToValue(baton, ClaimedJob.class);
        if (job.lease() == null || !lease.equals(job.lease().value()))
            throw new IOException("job_spec.baton.lease is not the offer's lease_id");
        long ttl = m.path("lease_ttl_seconds").asLong(120);
        long every = m.path("heartbeat_interval_seconds").asLong(Math.max(1, ttl / 6));
        return new LeaseGrant(
                lease,
                m.path("job_id").asText(job.uuid().toString()),
                job,
                Duration.ofSeconds(Math.max(2, ttl)),
                Duration.ofSeconds(Math.max(1, Math.min(every, ttl / 2))),
                m.path("max_runtime_seconds").asLong(job.timeout()));
    }

    /** The job as the executors run it, with the registry pull token LeaseAccepted carried. */
    ClaimedJob withPullToken(String token) {
        return new ClaimedJob(
                job.uuid(), job.lease(), job.attempt(), job.spec(), job.config(), token, job.timeout(), job.created());
    }
}
