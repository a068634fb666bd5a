package dev.baton.store.blob;

import java.security.MessageDigest;

/**
 * The digests of everything an upload has received so far, for both accepted algorithms (the
 * algorithm is known only when the upload finishes). Lives in one node's memory: an upload
 * continued on another node has no running hash there, and its content is hashed again on commit
 * (see {@link ChunkedUpload}).
 */
public final class RunningHash {
    private final MessageDigest sha256;
    private final MessageDigest sha512;
    private long size;

    public RunningHash() {
        this(Digest.newHasher("sha256"), Digest.newHasher("sha512"), 0);
    }

    private RunningHash(MessageDigest sha256, MessageDigest sha512, long size) {
        this.sha256 = sha256;
        this.sha512 = sha512;
        this.size = size;
    }

    public void update(byte[] buffer, int offset, int length) {
        sha256.update(buffer, offset, length);
        sha512.update(buffer, offset, length);
        size += length;
    }

    /** Bytes seen. */
    public long size() {
        return size;
    }

    /** The digest of what was seen, in {@code algorithm}; the running state is left as it is. */
    public Digest digest(String algorithm) {
        MessageDigest hasher = algorithm.equals("sha256") ? sha256 : sha512;
        return Digest.of(algorithm, clone(hasher));
    }

    /** An independent copy, so that a chunk that fails to be recorded does not spoil this state. */
    public RunningHash copy() {
        return new RunningHash(clone(sha256), clone(sha512), size);
    }

    private static MessageDigest clone(MessageDigest hasher) {
        try {
            return (MessageDigest) hasher.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's SHA digests are cloneable", e);
        }
    }
}
