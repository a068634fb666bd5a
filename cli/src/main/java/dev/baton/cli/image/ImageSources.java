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
 * ({@code docker save}, {@code podman save}); or any other directory, taken as the root
 * filesystem of a one-layer image (see {@link RootFilesystem}).
 */
final class ImageSources {
    private ImageSources() {}

    /**
     * @param container what a directory image runs; must be empty for a layout or an archive, which bring their own
     * @param scratch   a directory for a decompressed copy of a gzip archive or a directory's layer; the caller deletes it
     */
    static LocalImage open(Path source, String ref, ContainerConfig container, Path scratch) throws IOException {
        if (RootFilesystem.looksLikeRootFilesystem(source)) {
            if (ref != null)
                throw new ImageSourceException("--ref picks an image inside a layout or archive; " + source
                        + " is a plain directory (a root filesystem)");
            return RootFilesystem.read(source, container, scratch);
        }
        if (!container.isEmpty()) {
            throw new ImageSourceException(
                    "--entrypoint, --cmd, --env and --workdir apply only to a plain directory (a root filesystem); "
                            + source + " is an OCI layout or archive, whose image config already says what it runs");
        }
        if (Files.isDirectory(source)) {
            DirectoryFiles files = new DirectoryFiles(source);
            if (!OciLayout.looksLikeLayout(files)) {
                throw new ImageSourceException(
                        source + " has only one of oci-layout and index.json: an incomplete OCI image layout, "
                                + "not an OCI image layout nor a plain directory to push as a root filesystem");
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
