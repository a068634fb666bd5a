package dev.baton.store.blob;

import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.UUID;

/**
 * Blobs in an S3-compatible bucket, with the directory store's layout as keys:
 * {@code blobs/<algorithm>/<2 hex>/<hex>}, chunks of uploads in progress under
 * {@code _uploads/<upload id>/<chunk>}. A chunk is one object (a multipart upload when it is larger
 * than a part). A verified upload of one chunk becomes its blob by a server-side copy; one of
 * several chunks is streamed once more into a multipart upload of the blob (chunked pushes are
 * rare: docker, skopeo and crane send a layer in one request). S3 makes an object visible only
 * when its upload is complete, so readers see no blob or the whole verified one.
 */
public final class S3BlobStore implements BlobStore {
    private static final String UPLOADS = "_uploads/";

    private final S3Bucket bucket;

    public S3BlobStore(S3Bucket bucket) {
        this.bucket = bucket;
    }

    @Override
    public Optional<Long> size(Digest digest) {
        return bucket.size(key(digest));
    }

    @Override
    public InputStream open(Digest digest, long offset) throws IOException {
        return bucket.open(key(digest), offset);
    }

    @Override
    public void createStaging(String uploadId) {
        BlobStore.checkUploadId(uploadId); // S3 has no directories: the first chunk makes the area
    }

    @Override
    public StagedChunk writeChunk(String uploadId, InputStream content, long maxBytes, RunningHash hash)
            throws IOException {
        String name = UUID.randomUUID().toString();
        long size = bucket.upload(chunkKey(uploadId, name), content, maxBytes, hash);
        return new StagedChunk(name, size);
    }

    @Override
    public InputStream openChunks(String uploadId, List<StagedChunk> chunks) {
        // Opened one after the other, so a long upload does not hold a connection per chunk.
        Iterator<StagedChunk> it = chunks.iterator();
        return new SequenceInputStream(new java.util.Enumeration<>() {
            @Override
            public boolean hasMoreElements() {
                return it.hasNext();
            }

            @Override
            public InputStream nextElement() {
                if (!it.hasNext()) throw new NoSuchElementException();
                try {
                    return bucket.open(chunkKey(uploadId, it.next().name()), 0);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });
    }

    @Override
    public void commit(String uploadId, List<StagedChunk> chunks, Digest digest) throws IOException {
        String target = key(digest);
        if (bucket.size(target).isEmpty()) {
            if (chunks.size() == 1 && chunks.getFirst().size() <= S3Bucket.MAX_COPY_BYTES) {
                bucket.copy(chunkKey(uploadId, chunks.getFirst().name()), target);
            } else {
                try (InputStream in = openChunks(uploadId, chunks)) {
                    bucket.upload(target, in, Long.MAX_VALUE, new RunningHash());
                }
            }
        }
        discard(uploadId);
    }

    @Override
    public void deleteChunk(String uploadId, StagedChunk chunk) {
        bucket.remove(chunkKey(uploadId, chunk.name()));
    }

    @Override
    public void discard(String uploadId) {
        for (S3Bucket.Entry entry :
                bucket.list(UPLOADS + BlobStore.checkUploadId(uploadId) + "/", false, Integer.MAX_VALUE)) {
            bucket.remove(entry.key());
        }
    }

    @Override
    public List<StagedUpload> stagedUploads() {
        Map<String, StagedUpload> byId = new LinkedHashMap<>();
        for (S3Bucket.Entry entry : bucket.list(UPLOADS, false, Integer.MAX_VALUE)) {
            String rest = entry.key().substring(UPLOADS.length());
            int slash = rest.indexOf('/');
            if (slash <= 0) continue;
            String id = rest.substring(0, slash);
            StagedUpload seen = byId.get(id);
            if (seen == null || seen.lastModified().isBefore(entry.lastModified()))
                byId.put(id, new StagedUpload(id, entry.lastModified()));
        }
        return List.copyOf(byId.values());
    }

    private static String key(Digest digest) {
        return "blobs/" + digest.algorithm() + "/" + digest.hex().substring(0, 2) + "/" + digest.hex();
    }

    private static String chunkKey(String uploadId, String chunk) {
        return UPLOADS + BlobStore.checkUploadId(uploadId) + "/" + chunk;
    }
}
