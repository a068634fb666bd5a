package dev.baton.store.token;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import java.time.Instant;

/**
 * What one pull token is for (issue 41): one attempt of one job ({@code scope}), by its runner, in
 * its project's repository, and never past {@code notAfter} (the job's hard timeout counted from
 * the token's issue). The registry also refuses it once the attempt is no longer live.
 */
public record JobPull(RunnerUuid runner, ProjectUuid project, PullScope scope, Instant notAfter) {}
