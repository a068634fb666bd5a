package dev.baton.store.blob;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One S3-compatible bucket under a key prefix: the few operations the blob store and the named
 * objects need, with the SDK's failures turned into {@link BlobStorageException}. Large objects
 * are written as multipart uploads of {@code partSize} parts, so memory holds one part per
 * writer, never a whole blob.
 */
public final class S3Bucket implements AutoCloseable {
    /** S3's smallest part (all but the last); MinIO, Ceph and R2 keep the same rule. */
    public static final int MIN_PART_SIZE = 5 * 1024 * 1024;
    /** The largest object a single copy request may copy. */
    public static final long MAX_COPY_BYTES = 5L * 1024 * 1024 * 1024;

    private final S3Client client;
    private final String bucket;
    private final String prefix;
    private final int partSize;

    public S3Bucket(S3Client client, String bucket, String prefix, int partSize) {
        if (partSize < MIN_PART_SIZE)
            throw new IllegalArgumentException("S3 parts must be at least " + MIN_PART_SIZE + " bytes");
        this.client = client;
        this.bucket = bucket;
        this.prefix = prefix;
        this.partSize = partSize;
    }

    /** A client for {@code location} over the JDK's HttpURLConnection (docs/decisions/0007-s3-blob-store.md). */
    public static S3Bucket connect(S3Location location, int partSize) {
        AwsCredentialsProvider credentials = location.accessKeyId() != null
                ? StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(location.accessKeyId(), location.secretAccessKey()))
                : DefaultCredentialsProvider.builder().build();
        var builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .region(Region.of(location.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(location.pathStyle())
                // Checksums only where S3 requires them: the newer default (a CRC trailer on every
                // upload) is not understood by many S3-compatible servers.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // Plain signed bodies, not aws-chunked ones: some S3-compatible servers store the
                // chunk signatures as content. Parts are in memory anyway, so hashing them is cheap.
                .serviceConfiguration(
                        S3Configuration.builder().chunkedEncodingEnabled(false).build());
        if (location.endpoint() != null) builder.endpointOverride(location.endpoint());
        return new S3Bucket(builder.build(), location.bucket(), location.prefix(), partSize);
    }

    /** Size of the object, empty when there is none. */
    public Optional<Long> size(String key) {
        return unlessMissing(
                "HEAD " + key,
                () -> client.headObject(b -> b.bucket(bucket).key(prefix + key)).contentLength());
    }

    /** The object from {@code offset} on, streamed; NoSuchFile-like {@link IOException} when absent. */
    public InputStream open(String key, long offset) throws IOException {
        try {
            ResponseInputStream<GetObjectResponse> in = client.getObject(b -> {
                b.bucket(bucket).key(prefix + key);
                if (offset > 0) b.range("bytes=" + offset + "-");
            });
            return in;
        } catch (NoSuchKeyException e) {
            throw new java.nio.file.NoSuchFileException(key);
        } catch (S3Exception e) {
            if (e.statusCode() == 416) return InputStream.nullInputStream(); // offset at the end
            if (e.statusCode() == 404) throw new java.nio.file.NoSuchFileException(key);
            throw failed("GET " + key, e);
        } catch (SdkException e) {
            throw failed("GET " + key, e);
        }
    }

    public Optional<byte[]> read(String key) {
        return unlessMissing(
                "GET " + key,
                () -> client.getObjectAsBytes(b -> b.bucket(bucket).key(prefix + key))
                        .asByteArray());
    }

    /** Writes a small object in one request (S3 replaces objects atomically). */
    public void write(String key, byte[] content) {
        try {
            client.putObject(b -> b.bucket(bucket).key(prefix + key), RequestBody.fromBytes(content));
        } catch (SdkException e) {
            throw failed("PUT " + key, e);
        }
    }

    /**
     * Streams {@code content} into the object {@code key}: one request when it fits in a part,
     * else a multipart upload, aborted on any failure. Every byte passes through {@code hash}.
     *
     * @return bytes written
     * @throws BlobTooLargeException past {@code maxBytes}; nothing is left stored
     */
    public long upload(String key, InputStream content, long maxBytes, RunningHash hash) throws IOException {
        // A bound below one part needs a buffer of one byte more, to tell "exactly the bound" from "over".
        byte[] part = new byte[maxBytes >= partSize ? partSize : (int) maxBytes + 1];
        int n = fill(content, part, hash);
        if (n > maxBytes) throw new BlobTooLargeException(maxBytes);
        if (n < part.length) {
            write(key, java.util.Arrays.copyOf(part, n));
            return n;
        }
        String uploadId;
        try {
            uploadId = client.createMultipartUpload(b -> b.bucket(bucket).key(prefix + key))
                    .uploadId();
        } catch (SdkException e) {
            throw failed("start multipart upload of " + key, e);
        }
        List<CompletedPart> parts = new ArrayList<>();
        long total = 0;
        try {
            while (n > 0) {
                total += n;
                if (total > maxBytes) throw new BlobTooLargeException(maxBytes);
                int number = parts.size() + 1;
                int length = n;
                // A provider, not a copy: the SDK may read the part again to retry it.
                RequestBody body = RequestBody.fromContentProvider(
                        () -> new ByteArrayInputStream(part, 0, length), length, "application/octet-stream");
                String etag = client.uploadPart(
                                b -> b.bucket(bucket)
                                        .key(prefix + key)
                                        .uploadId(uploadId)
                                        .partNumber(number),
                                body)
                        .eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
                n = n < part.length ? 0 : fill(content, part, hash);
            }
            client.completeMultipartUpload(b -> b.bucket(bucket)
                    .key(prefix + key)
                    .uploadId(uploadId)
                    .multipartUpload(
                            CompletedMultipartUpload.builder().parts(parts).build()));
            return total;
        } catch (IOException | RuntimeException e) {
            try {
                client.abortMultipartUpload(
                        b -> b.bucket(bucket).key(prefix + key).uploadId(uploadId));
            } catch (SdkException abort) {
                e.addSuppressed(abort);
            }
            if (e instanceof SdkException sdk) throw failed("multipart upload of " + key, sdk);
            throw e;
        }
    }

    /** Server-side copy of an object of at most {@link #MAX_COPY_BYTES}. */
    public void copy(String from, String to) {
        try {
            client.copyObject(b -> b.sourceBucket(bucket)
                    .sourceKey(prefix + from)
                    .destinationBucket(bucket)
                    .destinationKey(prefix + to));
        } catch (SdkException e) {
            throw failed("COPY " + from + " to " + to, e);
        }
    }

    /** True when the object existed (S3's own DELETE does not say, so this costs a HEAD first). */
    public boolean delete(String key) {
        boolean existed = size(key).isPresent();
        remove(key);
        return existed;
    }

    /** Deletes the object if there is one. */
    public void remove(String key) {
        try {
            client.deleteObject(b -> b.bucket(bucket).key(prefix + key));
        } catch (SdkException e) {
            throw failed("DELETE " + key, e);
        }
    }

    /** One stored object under a prefix: its key (relative to the bucket prefix), size and time. */
    public record Entry(String key, long size, Instant lastModified) {}

    /** Objects under {@code keyPrefix}; with {@code directOnly}, not those under a further {@code /}. */
    public List<Entry> list(String keyPrefix, boolean directOnly, int limit) {
        List<Entry> result = new ArrayList<>();
        try {
            ListObjectsV2Request.Builder request =
                    ListObjectsV2Request.builder().bucket(bucket).prefix(prefix + keyPrefix);
            if (directOnly) request.delimiter("/");
            String token = null;
            do {
                if (token != null) request.continuationToken(token);
                ListObjectsV2Response page = client.listObjectsV2(request.build());
                for (S3Object o : page.contents()) {
                    result.add(new Entry(o.key().substring(prefix.length()), o.size(), o.lastModified()));
                    if (result.size() >= limit) return result;
                }
                token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
            } while (token != null);
            return result;
        } catch (SdkException e) {
            throw failed("LIST " + keyPrefix, e);
        }
    }

    /** Whether anything at all is stored under {@code keyPrefix}, objects in deeper levels included. */
    public boolean anyUnder(String keyPrefix) {
        try {
            return client.listObjectsV2(b ->
                                    b.bucket(bucket).prefix(prefix + keyPrefix).maxKeys(1))
                            .keyCount()
                    > 0;
        } catch (SdkException e) {
            throw failed("LIST " + keyPrefix, e);
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** Reads until {@code buffer} is full or the stream ends, hashing what it read. */
    private static int fill(InputStream in, byte[] buffer, RunningHash hash) throws IOException {
        int filled = 0;
        while (filled < buffer.length) {
            int n = in.read(buffer, filled, buffer.length - filled);
            if (n < 0) break;
            hash.update(buffer, filled, n);
            filled += n;
        }
        return filled;
    }

    /** The request's answer; empty when the key does not exist; any other failure a {@link BlobStorageException}. */
    private <T> Optional<T> unlessMissing(String operation, Supplier<T> request) {
        try {
            return Optional.of(request.get());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) return Optional.empty();
            throw failed(operation, e);
        } catch (SdkException e) {
            throw failed(operation, e);
        }
    }

    private BlobStorageException failed(String operation, SdkException e) {
        return new BlobStorageException("S3 bucket " + bucket + ": " + operation, e);
    }
}
