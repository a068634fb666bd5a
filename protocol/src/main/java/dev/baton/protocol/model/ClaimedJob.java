package dev.baton.protocol.model;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.time.Instant;

/**
 * Everything a runner needs to execute one attempt (seed 001's JsonClaimedJob plus the lease and
 * attempt number of seed 003). The pull token is minted at claim time and never stored.
 */
public record ClaimedJob(
        JobUuid uuid,
        LeaseId lease,
        int attempt,
        SpecView spec,
        JobConfig config,
        String ociToken,
        int timeout,
        Instant created) {}
