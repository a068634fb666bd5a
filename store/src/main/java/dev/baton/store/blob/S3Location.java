package dev.baton.store.blob;

import java.net.URI;

/**
 * Where an S3-compatible bucket is and how to sign in to it.
 *
 * @param endpoint        the service URL (MinIO, Ceph, R2, …); null for AWS's own endpoint of the region
 * @param region          signing region; S3-compatible services mostly accept any, e.g. {@code us-east-1}
 * @param bucket          the bucket, which must exist
 * @param prefix          key prefix for everything Baton stores ("" or ending in {@code /})
 * @param accessKeyId     null: the SDK's default chain (AWS_ACCESS_KEY_ID, profiles, instance roles)
 * @param secretAccessKey with {@code accessKeyId}
 * @param pathStyle       {@code http://host/bucket/key} (what MinIO and Ceph expect) rather than {@code http://bucket.host/key}
 */
public record S3Location(
        URI endpoint,
        String region,
        String bucket,
        String prefix,
        String accessKeyId,
        String secretAccessKey,
        boolean pathStyle) {
    public S3Location {
        if (bucket == null || bucket.isBlank()) throw new IllegalArgumentException("an S3 blob store needs a bucket");
        if (region == null || region.isBlank()) throw new IllegalArgumentException("an S3 blob store needs a region");
        String trimmed = prefix == null ? "" : prefix.replaceAll("^/+", "").replaceAll("/+$", "");
        prefix = trimmed.isEmpty() ? "" : trimmed + "/";
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException(
                    "an S3 access key id needs its secret access key, and the other way round");
        }
    }

    /** Never the secret. */
    @Override
    public String toString() {
        return "s3://" + bucket + "/" + prefix + (endpoint != null ? " at " + endpoint : "") + " (" + region + ")";
    }
}
