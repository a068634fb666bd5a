package dev.baton.store.blob;

/**
 * One written piece of an upload in the store's staging area, named by the store. Chunks are
 * immutable once written: an upload is the ordered list of its chunks, which the registry
 * records in the database, so any node can continue or finish it.
 */
public record StagedChunk(String name, long size) {
    public StagedChunk {
        if (name == null || !name.matches("[A-Za-z0-9-]{1,64}"))
            throw new IllegalArgumentException("bad chunk name " + name);
        if (size < 0) throw new IllegalArgumentException("negative chunk size");
    }
}
