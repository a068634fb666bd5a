package dev.baton.store.token;

import java.time.Instant;

/**
 * Mints the OCI pull token of a claimed job (seed 001, narrowed by issue 41): a JWT whose subject
 * is the runner, audience the registry, pull-only on the job's project repository and image, for
 * one attempt, valid for pull_token_ttl and never past the job's hard timeout. Never stored; one
 * per claim and per {@code pull_token} request (docs/decisions/0041-job-pull-tokens.md).
 */
public interface PullTokens {
    String issue(JobPull pull, Instant now);
}
