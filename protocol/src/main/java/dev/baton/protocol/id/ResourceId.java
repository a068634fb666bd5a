package dev.baton.protocol.id;

import java.util.Optional;
import java.util.UUID;

/**
 * A path parameter naming a resource by UUID or by slug ({runner}, {spec}, {project}).
 * Slugs are never UUID-shaped (see {@link dev.baton.protocol.value.Slug}), so the two cannot collide.
 */
public record ResourceId(String text) {
    public ResourceId {
        if (text == null || text.isBlank()) throw new IllegalArgumentException("resource id must not be empty");
    }

    public static ResourceId of(String text) {
        return new ResourceId(text);
    }

    public Optional<UUID> uuid() {
        return Uuids.looksLikeUuid(text) ? Optional.of(UUID.fromString(text)) : Optional.empty();
    }

    @Override
    public String toString() {
        return text;
    }
}
