package dev.baton.store.token;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.value.ImageDigest;

/**
 * The job a pull token was minted for (issue 41): the registry serves its holder only the
 * manifests and blobs of {@code image}, and only while {@code attempt} of {@code job} is live
 * (claimed or running). The attempt, not the lease, names it: a token is a bearer credential a
 * registry client may log, and the lease is the runner's fencing capability.
 *
 * <p>{@code baseline} is a paired job's baseline image (issue 45), null for every other job: the
 * token then fetches that image too, since the runner prepares both sides under the one lease.
 */
public record PullScope(JobUuid job, int attempt, ImageDigest image, ImageDigest baseline) {
    /** A job with one image. */
    public PullScope(JobUuid job, int attempt, ImageDigest image) {
        this(job, attempt, image, null);
    }

    /** The images the token fetches: the job's, then the baseline's when there is one. */
    public java.util.List<ImageDigest> images() {
        return baseline == null || baseline.equals(image)
                ? java.util.List.of(image)
                : java.util.List.of(image, baseline);
    }
}
