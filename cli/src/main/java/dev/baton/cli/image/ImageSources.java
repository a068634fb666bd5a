package dev.baton.cli.image;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.GZIPInputStream;

/**
 * Opens what {@code baton image push} is given: an OCI image layout directory, or a tar file
 * (optionally gzip-compressed) holding an OCI layout ({@code podman save --format oci-archive},
 * {@code skopeo copy … oci-archive:}, recent {@code docker save}) or a Docker archive
 * ({@code docker save}, {@code podman save}).
 */
final class ImageSources {
    private ImageSources() {}

    /**
     * @param scratch a directory for a decompressed copy of a gzip archive; the caller deletes it
     */
    static LocalImage open(Path source, String ref, Path scratch) throws IOException {
        if (Files.isDirectory(source)) {
            DirectoryFiles files = new DirectoryFiles(source);
            if (!OciLayout.looksLikeLayout(files)) {
                throw new ImageSourceException(source + " is a directory but not an OCI image layout (no oci-layout/index.json)");
            }
            return OciLayout.read(files, ref);
        }
        if (!Files.isRegularFile(source)) throw new ImageSourceException(source + " does not exist");
        Path tar = source;
        if (isGzip(source)) {
            tar = scratch.resolve("image.tar");
            try (InputStream in = new GZIPInputStream(Files.newInputStream(source))) {
                Files.copy(in, tar, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        TarFiles files = TarFiles.index(tar);
        if (OciLayout.looksLikeLayout(files)) {
            try {
                return OciLayout.read(files, ref);
            } catch (ImageSourceException e) {
                // Recent docker save writes both forms, and its OCI index may name platforms it did not save.
                if (!DockerArchive.looksLikeArchive(files)) throw e;
            }
        }
        if (DockerArchive.looksLikeArchive(files)) return DockerArchive.read(files, ref);
        throw new ImageSourceException(source + " is neither an OCI archive nor a docker/podman save archive");
    }

    private static boolean isGzip(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] magic = in.readNBytes(2);
            return magic.length == 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b;
        }
    }
}
