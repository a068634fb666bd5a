package dev.baton.store.blob;

import java.util.List;
import java.util.Optional;

/** Named objects in an S3-compatible bucket (keys as the directory store's paths). */
public final class S3Objects implements NamedObjects {
    private final S3Bucket bucket;

    public S3Objects(S3Bucket bucket) {
        this.bucket = bucket;
    }

    @Override
    public Optional<byte[]> read(String key) {
        return bucket.read(key);
    }

    @Override
    public void write(String key, byte[] content) {
        bucket.write(key, content);
    }

    @Override
    public boolean delete(String key) {
        return bucket.delete(key);
    }

    @Override
    public boolean exists(String key) {
        return bucket.size(key).isPresent();
    }

    @Override
    public List<String> list(String prefix) {
        return bucket.list(prefix, true, Integer.MAX_VALUE).stream()
                .map(e -> e.key().substring(prefix.length()))
                .filter(name -> !name.isEmpty())
                .sorted()
                .toList();
    }

    @Override
    public List<String> listAll(String prefix) {
        return bucket.list(prefix, false, Integer.MAX_VALUE).stream()
                .map(e -> e.key().substring(prefix.length()))
                .filter(name -> !name.isEmpty())
                .sorted()
                .toList();
    }

    @Override
    public boolean anyUnder(String prefix) {
        return bucket.anyUnder(prefix);
    }
}
