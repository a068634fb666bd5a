package dev.baton.store;

import java.time.Instant;

/**
 * A registry upload session as stored: which repository it belongs to, and the chunks received
 * so far ({@code chunks} is the registry's JSON list of them; the store does not read it).
 */
public record RegistryUpload(
        String id, String projectUuid, String repository, long size, String chunks, Instant created, Instant updated) {}
