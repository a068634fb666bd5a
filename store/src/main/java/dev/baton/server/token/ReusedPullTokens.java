package dev.baton.server.token;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import java.time.Duration;
import java.time.Instant;

/**
 * Hands out the same pull token for a runner and project until half its lifetime has passed
 * (issue 13): signing an ES256 JWT costs more CPU than the rest of a claim's hand-out, and a
 * runner busy with one project's jobs would otherwise get a fresh signature per job. Every token
 * handed out still has at least half its lifetime left, which is when the runner pulls (right
 * after the claim). Tokens are only ever in memory, like the ones they stand for.
 */
public final class ReusedPullTokens implements PullTokens {
    private record Key(RunnerUuid runner, ProjectUuid project) {}

    private final PullTokens signer;
    private final TokenReuse<Key> reuse;

    /** @param ttl the lifetime {@code signer} gives its tokens */
    public ReusedPullTokens(PullTokens signer, Duration ttl) {
        this.signer = signer;
        this.reuse = new TokenReuse<>(ttl.dividedBy(2), 10_000);
    }

    @Override
    public String issue(RunnerUuid runner, ProjectUuid project, Instant now) {
        return reuse.issue(new Key(runner, project), now, () -> signer.issue(runner, project, now));
    }
}
