package dev.baton.server.token;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.RunnerUuid;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands out the same pull token for a runner and project until half its lifetime has passed
 * (issue 13): signing an ES256 JWT costs more CPU than the rest of a claim's hand-out, and a
 * runner busy with one project's jobs would otherwise get a fresh signature per job. Every token
 * handed out still has at least half its lifetime left, which is when the runner pulls (right
 * after the claim). Tokens are only ever in memory, like the ones they stand for.
 */
public final class ReusedPullTokens implements PullTokens {
    private record Key(RunnerUuid runner, ProjectUuid project) {}

    private record Issued(String token, Instant reuseUntil) {}

    private final PullTokens signer;
    private final Duration reuseFor;
    private final Map<Key, Issued> issued = new ConcurrentHashMap<>();

    /** @param ttl the lifetime {@code signer} gives its tokens */
    public ReusedPullTokens(PullTokens signer, Duration ttl) {
        this.signer = signer;
        this.reuseFor = ttl.dividedBy(2);
    }

    @Override
    public String issue(RunnerUuid runner, ProjectUuid project, Instant now) {
        Key key = new Key(runner, project);
        Issued current = issued.get(key);
        // Issued in the future means the clock went back: sign anew rather than trust it.
        if (current != null && now.isBefore(current.reuseUntil()) && !now.isBefore(current.reuseUntil().minus(reuseFor))) {
            return current.token();
        }
        String token = signer.issue(runner, project, now);
        issued.put(key, new Issued(token, now.plus(reuseFor)));
        // Expired entries go when their pair is next seen; bound the map for runners and projects that come and go.
        if (issued.size() > 10_000) issued.values().removeIf(i -> !now.isBefore(i.reuseUntil()));
        return token;
    }
}
