package dev.baton.store.blob;

import dev.baton.core.config.BlobSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * The storage a server keeps besides its database, opened from the config: content-addressed
 * blobs and the named objects beside them (registry metadata, job output), both in one directory
 * or both in one S3-compatible bucket. Every node of a cluster must open the same one.
 */
public record BlobStorage(BlobStore blobs, NamedObjects objects, AutoCloseable resources) implements AutoCloseable {

    /** The directory store under {@code root}, uploads in progress kept. */
    public static BlobStorage directory(Path root) {
        try {
            return new BlobStorage(DirectoryBlobStore.create(root), new FileObjects(root), () -> {});
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the blob storage in " + root, e);
        }
    }

    /** Blobs and objects in the bucket. */
    public static BlobStorage s3(S3Bucket bucket) {
        return new BlobStorage(new S3BlobStore(bucket), new S3Objects(bucket), bucket);
    }

    public static BlobStorage open(BlobSettings settings, Path dataDir) {
        return switch (settings.blobStore()) {
            case DIRECTORY -> directory(settings.directoryIn(dataDir));
            case S3 ->
                s3(S3Bucket.connect(
                        new S3Location(
                                settings.s3Endpoint() == null ? null : URI.create(settings.s3Endpoint()),
                                settings.s3Region(),
                                settings.s3Bucket(),
                                settings.s3Prefix(),
                                settings.s3AccessKeyId(),
                                settings.s3SecretAccessKey(),
                                settings.s3PathStyle()),
                        (int) settings.s3PartSize()));
        };
    }

    @Override
    public void close() throws Exception {
        resources.close();
    }
}
