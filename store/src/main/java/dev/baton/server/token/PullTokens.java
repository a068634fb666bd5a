package dev.baton.server.token;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import java.time.Instant;

/**
 * Mints the OCI pull token handed out with a claimed job (seed 001): a JWT whose subject is the
 * runner, audience the registry, pull-only for one project, valid for minutes. Never stored.
 */
public interface PullTokens {
    String issue(RunnerUuid runner, ProjectUuid project, Instant now);
}
