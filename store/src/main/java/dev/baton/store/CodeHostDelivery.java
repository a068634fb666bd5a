package dev.baton.store;

import java.time.Instant;

/**
 * One judged report to send to one code host (docs/pull-requests.md): the outbox row with
 * what the sender needs of the host and the report. {@code number} is the pull request (GitHub)
 * or merge request (GitLab); {@code checkRun} the check run an earlier attempt created.
 */
public record CodeHostDelivery(
        long id,
        CodeHost host,
        long reportId,
        String reportUuid,
        String branch,
        String testbed,
        String hash,
        int number,
        int attempts,
        Instant nextAttempt,
        Instant delivered,
        Integer lastStatus,
        String lastError,
        String checkRun,
        Instant created) {}
