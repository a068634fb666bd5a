package dev.baton.registry;

import dev.baton.store.blob.Digest;

/** A manifest as served: its digest, media type and exact bytes. */
public record StoredManifest(Digest digest, String mediaType, byte[] content) {}
