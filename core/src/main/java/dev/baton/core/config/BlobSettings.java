package dev.baton.core.config;

import java.nio.file.Path;

/**
 * Where blobs (image layers, manifests), registry metadata and job output are kept: a directory
 * (the default, {@code {data_dir}/storage}; a shared mount serves several nodes) or an
 * S3-compatible bucket. See docs/configuration.md, "Blob storage".
 *
 * @param blobStore         directory or s3
 * @param blobDir           the directory; null for {@code {data_dir}/storage}
 * @param s3Endpoint        service URL (MinIO, Ceph, R2, …); null for AWS itself
 * @param s3Region          signing region
 * @param s3Bucket          bucket name (required for s3)
 * @param s3Prefix          key prefix, "" for none
 * @param s3AccessKeyId     null: the AWS SDK's default credentials chain
 * @param s3SecretAccessKey with the key id
 * @param s3PathStyle       path-style addressing (MinIO, Ceph) rather than virtual-hosted buckets
 * @param s3PartSize        multipart part size, at least 5 MiB
 */
public record BlobSettings(
        Kind blobStore,
        Path blobDir,
        String s3Endpoint,
        String s3Region,
        String s3Bucket,
        String s3Prefix,
        String s3AccessKeyId,
        String s3SecretAccessKey,
        boolean s3PathStyle,
        long s3PartSize) {

    public enum Kind {
        DIRECTORY,
        S3
    }

    public static final String DEFAULT_REGION = "us-east-1";
    /** Parts of 8 MiB keep a 1 GiB layer at 128 parts and one writer's memory small. */
    public static final long DEFAULT_PART_SIZE = 8L * 1024 * 1024;

    public static final long MIN_PART_SIZE = 5L * 1024 * 1024;
    public static final long MAX_PART_SIZE = 512L * 1024 * 1024;

    /** The default: {@code {data_dir}/storage}. */
    public static BlobSettings directoryDefault() {
        return new BlobSettings(
                Kind.DIRECTORY, null, null, DEFAULT_REGION, null, "", null, null, true, DEFAULT_PART_SIZE);
    }

    /** The directory blobs live in when {@link #blobStore} is DIRECTORY. */
    public Path directoryIn(Path dataDir) {
        return blobDir != null ? blobDir : dataDir.resolve("storage");
    }

    /** Never prints the secret. */
    @Override
    public String toString() {
        return blobStore == Kind.DIRECTORY
                ? "directory " + (blobDir == null ? "{data_dir}/storage" : blobDir)
                : "s3 bucket " + s3Bucket + (s3Endpoint == null ? "" : " at " + s3Endpoint) + " (" + s3Region + ")";
    }
}
