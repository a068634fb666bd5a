package dev.baton.store.token;

import dev.baton.protocol.id.JobUuid;
import java.time.Duration;
import java.time.Instant;

/**
 * Presents the same node token for a job until {@link #REUSE_FOR} after it was signed, instead of
 * signing an ES256 JWT for every request a reader's node makes to the runner's node (a follower
 * asks about once a second, or once per new entry). A node token is valid
 * {@link RegistryTokens#NODE_TOKEN_SLACK} either side of its issue time, so every use still has at
 * least {@code NODE_TOKEN_SLACK - REUSE_FOR} left and {@code NODE_TOKEN_SLACK} since it became
 * valid, by this node's clock: another node's clock may be that far ahead or behind. The token
 * names the job, not the node asked, so one entry serves whichever node holds the job's log.
 * Verifying is the signer's, unchanged.
 */
public final class ReusedNodeTokens implements NodeTokens {
    /** How long a signed token is presented again. */
    static final Duration REUSE_FOR = RegistryTokens.NODE_TOKEN_SLACK.dividedBy(2);

    private record Key(String fromNode, JobUuid job) {}

    private final NodeTokens signer;
    /** Past 1,000 jobs the expired entries are dropped (followed jobs come and go). */
    private final TokenReuse<Key> reuse = new TokenReuse<>(REUSE_FOR, 1_000);

    public ReusedNodeTokens(NodeTokens signer) {
        this.signer = signer;
    }

    @Override
    public String issue(String fromNode, JobUuid job, Instant now) {
        return reuse.issue(new Key(fromNode, job), now, () -> signer.issue(fromNode, job, now));
    }

    @Override
    public boolean verify(String token, JobUuid job, Instant now) {
        return signer.verify(token, job, now);
    }
}
