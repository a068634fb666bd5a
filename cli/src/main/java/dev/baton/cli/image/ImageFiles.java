package dev.baton.cli.image;

import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/** Read access to the files of an image source: a directory, or the entries of a tar archive. */
interface ImageFiles {
    /** Size of the file at {@code path} (slash-separated, relative), empty when absent. */
    Optional<Long> size(String path) throws IOException;

    InputStream open(String path) throws IOException;

    default byte[] read(String path, long max) throws IOException {
        long size = size(path).orElseThrow(() -> new ImageSourceException("missing file " + path));
        if (size > max)
            throw new ImageSourceException(path + " is " + size + " bytes, more than the " + max + " allowed");
        try (InputStream in = open(path)) {
            return in.readAllBytes();
        }
    }
}
