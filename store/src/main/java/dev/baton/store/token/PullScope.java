package dev.baton.store.token;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.value.ImageDigest;

/**
 * The job a pull token was minted for (issue 41): the registry serves its holder only the
 * manifests and blobs of {@code image}, and only while {@code attempt} of {@code job} is live
 * (claimed or running). The attempt, not the lease, names it: a token is a bearer credential a
 * registry client may log, and the lease is the runner's fencing capability.
 */
public record PullScope(JobUuid job, int attempt, ImageDigest image) {}
