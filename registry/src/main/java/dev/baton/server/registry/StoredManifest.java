package dev.baton.server.registry;

import dev.baton.server.blob.Digest;

/** A manifest as served: its digest, media type and exact bytes. */
public record StoredManifest(Digest digest, String mediaType, byte[] content) {}
