package dev.baton.store.blob;

import java.time.Instant;

/** An upload's staging area as a store lists it: its id and when anything in it was last written. */
public record StagedUpload(String id, Instant lastModified) {}
