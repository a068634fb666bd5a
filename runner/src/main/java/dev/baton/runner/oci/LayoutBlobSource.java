package dev.baton.runner.oci;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads an OCI image layout directory ({@code blobs/sha256/<hex>}), e.g. one written by {@code skopeo copy … oci:DIR}. */
public final class LayoutBlobSource implements BlobSource {
    private final Path layout;

    public LayoutBlobSource(Path layout) {
        this.layout = layout;
    }

    @Override
    public InputStream manifest(String digest) throws IOException, PullDeniedException {
        return blob(digest);
    }

    @Override
    public InputStream blob(String digest) throws IOException, PullDeniedException {
        String[] parts = digest.split(":", 2);
        if (parts.length != 2 || !parts[0].equals("sha256") || !parts[1].matches("[0-9a-f]{64}")) {
            throw new IOException("unsupported digest " + digest);
        }
        Path p = layout.resolve("blobs").resolve("sha256").resolve(parts[1]);
        if (!Files.isRegularFile(p)) throw new PullDeniedException("image content " + digest + " not in the layout");
        return Files.newInputStream(p);
    }
}
