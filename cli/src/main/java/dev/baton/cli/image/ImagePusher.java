package dev.baton.cli.image;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Pushes a local image (OCI layout, OCI archive, docker/podman save archive, or a plain directory
 * made into a one-layer image) to a registry:
 * blobs the registry lacks, then child manifests by digest, then the top manifest under the tag.
 * Returns the top manifest's digest, which is what {@code baton run} takes.
 */
public final class ImagePusher {
    static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";

    private final HttpClient http;
    private final PrintWriter progress;

    public ImagePusher(HttpClient http, PrintWriter progress) {
        this.http = http;
        this.progress = progress;
    }

    /**
     * @param source      layout directory or archive file
     * @param ref         which image of a source holding several (ref name or repo tag); null for the only one
     * @param destination {@code [http(s)://host:port/]<project>/<name>[:<tag>]}
     * @param server      server URL used when the destination names none
     * @param token       admin token or registry token; null to try without
     */
    public String push(Path source, String ref, String destination, String server, String token)
            throws IOException, InterruptedException {
        return push(source, ref, ContainerConfig.none(), destination, server, token);
    }

    /**
     * @param container what an image made from a plain directory runs; empty for a layout or archive
     */
    public String push(
            Path source, String ref, ContainerConfig container, String destination, String server, String token)
            throws IOException, InterruptedException {
        ImageReference target = ImageReference.parse(destination, server);
        Path scratch = Files.createTempDirectory("baton-image-");
        try {
            LocalImage image = ImageSources.open(source, ref, container, scratch);
            RegistryClient client = new RegistryClient(http, target.server(), target.repository(), token);
            client.login();
            for (LocalImage.Blob blob : image.blobs().values()) {
                if (client.blobExists(blob.digest())) {
                    progress.printf("%s: already present%n", shortDigest(blob.digest()));
                } else {
                    progress.printf("%s: uploading %d bytes%n", shortDigest(blob.digest()), blob.size());
                    client.uploadBlob(blob);
                }
            }
            for (LocalImage.Manifest child :
                    image.manifests().subList(0, image.manifests().size() - 1)) {
                client.putManifest(child.digest(), child);
            }
            String digest = client.putManifest(target.tag(), image.top());
            if (!digest.equals(image.top().digest())) {
                throw new RegistryClientException("the registry stored the manifest as " + digest + ", expected "
                        + image.top().digest());
            }
            progress.printf("pushed %s@%s%n", target, digest);
            progress.flush();
            return digest;
        } finally {
            try (Stream<Path> files = Files.walk(scratch)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    private static String shortDigest(String digest) {
        return digest.substring(0, Math.min(digest.length(), 19));
    }
}
