package dev.baton.cli.image;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

/**
 * An image ready to push: its blobs (configs and layers) and its manifests in push order (child
 * manifests of an index first, the top manifest last, which is the one that gets the tag).
 */
record LocalImage(Map<String, Blob> blobs, List<Manifest> manifests) {
    LocalImage {
        blobs = Map.copyOf(blobs);
        manifests = List.copyOf(manifests);
    }

    Manifest top() {
        return manifests.getLast();
    }

    /** Something that can be read again from the start, as often as needed (retries, re-reads). */
    @FunctionalInterface
    interface Content {
        InputStream open() throws IOException;
    }

    record Blob(String digest, long size, Content content) {}

    record Manifest(String digest, String mediaType, byte[] content) {}
}
