package dev.baton.cli.image;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** A small OCI image layout on disk, for tests outside this package that need a pushable image. */
public final class TestImages {
    private TestImages() {}

    /** Writes an OCI layout holding one image (tag {@code latest}) into {@code dir}. */
    public static Path layout(Path dir, String seed) throws IOException {
        return ImagePushTest.writeDirectory(
                dir, ImagePushTest.layoutFiles(Map.of("latest", ImagePushTest.image(seed))));
    }
}
