package dev.baton.store.blob;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Small named objects beside the blobs: registry metadata and job output. Keys are paths with
 * {@code /} separators, relative to the storage root; callers build them from validated parts
 * (UUIDs, digests, repository names), so they never climb out of it. A write replaces the whole
 * object atomically: a reader sees the old or the new content, never a part.
 */
public interface NamedObjects {

    Optional<byte[]> read(String key) throws IOException;

    void write(String key, byte[] content) throws IOException;

    /** True when it existed. */
    boolean delete(String key) throws IOException;

    boolean exists(String key) throws IOException;

    /** Names of the objects directly under {@code prefix} (which ends in {@code /}), sorted. */
    List<String> list(String prefix) throws IOException;

    /** Keys (relative to {@code prefix}, which ends in {@code /}) of every object under it, at any depth, sorted. */
    List<String> listAll(String prefix) throws IOException;

    /** True when anything is stored under {@code prefix} (which ends in {@code /}). */
    boolean anyUnder(String prefix) throws IOException;
}
