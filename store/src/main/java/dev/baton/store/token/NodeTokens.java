package dev.baton.store.token;

import dev.baton.protocol.id.JobUuid;
import java.time.Instant;

/**
 * The credential one server node presents to another when it fetches a job's live log from the
 * node holding the runner's channel (docs/decisions/0016-cross-node-live.md): short-lived, for one
 * job, signed with the key every node of a cluster shares (the registry signing key), with an
 * audience of its own so that it is never accepted as a registry token, nor one as this.
 */
public interface NodeTokens {
    /** A token by node {@code fromNode} to read job {@code job}'s log, valid for about a minute. */
    String issue(String fromNode, JobUuid job, Instant now);

    /** True when {@code token} is a valid node token for {@code job} at {@code now}. */
    boolean verify(String token, JobUuid job, Instant now);
}
