package dev.baton.protocol.message;

import dev.baton.protocol.value.ImageDigest;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The rule for the {@code images} a runner reports in {@code ready} and heartbeats (issue 19,
 * docs/scheduling.md "Image affinity"): manifest digests of images the runner can start without
 * pulling, most recently used first, no repeats, at most {@link #MAX}. Bounded so that the list
 * costs little on the wire and in the dispatcher; a runner holding more reports its most recent.
 */
public final class HeldImages {
    public static final int MAX = 64;

    private HeldImages() {}

    /** The list as sent (null stays null: not reported), or an invalid-message error. */
    static List<ImageDigest> check(String message, List<ImageDigest> images) {
        if (images == null) return null;
        if (images.size() > MAX) throw new IllegalArgumentException(message + ": at most " + MAX + " images");
        // (List.of().contains(null) would throw: immutable lists refuse null queries.)
        if (images.stream().anyMatch(java.util.Objects::isNull))
            throw new IllegalArgumentException(message + ": images must be digests");
        if (new LinkedHashSet<>(images).size() != images.size())
            throw new IllegalArgumentException(message + ": images must not repeat");
        return List.copyOf(images);
    }
}
