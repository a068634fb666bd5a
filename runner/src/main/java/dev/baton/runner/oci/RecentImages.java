package dev.baton.runner.oci;

import dev.baton.protocol.value.ImageDigest;
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

/**
 * The images this runner can start without pulling their layers (every layer verified in its blob
 * cache), most recently used first, at most {@code max}: what it reports to the server as
 * {@code images} for image-affinity dispatch (docs/scheduling.md, "Image affinity"). Filled as
 * jobs prepare; kept in memory only, so a restarted agent reports nothing until it prepares again
 * (its blobs are still cached; the server then only misses a preference, never a job).
 */
public final class RecentImages {
    private final int max;
    private final LinkedList<ImageDigest> images = new LinkedList<>();

    public RecentImages(int max) {
        if (max < 1) throw new IllegalArgumentException("max must be at least 1");
        this.max = max;
    }

    /** The image's layers are all in the cache now (a job just prepared from it). */
    public synchronized void used(ImageDigest image) {
        images.remove(image);
        images.addFirst(image);
        while (images.size() > max) images.removeLast();
    }

    public synchronized List<ImageDigest> mostRecentFirst() {
        return List.copyOf(new ArrayList<>(images));
    }
}
