package dev.baton.server.testing;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.registry.ObjectRepositories;
import dev.baton.registry.Registry;
import dev.baton.registry.RepositoryKey;
import dev.baton.store.blob.Digest;
import dev.baton.store.blob.DirectoryBlobStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Small OCI images pushed into a server's registry storage through the real {@link Registry}
 * (links, manifests, tags as a push over HTTP writes them), for tests whose server has no
 * registry routes. The content is deterministic, so an image's digest is known before a push.
 */
public final class TestImages {
    private static final byte[] LAYER =
            "not a real layer: the registry stores blobs, runners read them".getBytes(StandardCharsets.UTF_8);

    /** An image whose config names {@code cmd} (empty: no Entrypoint or Cmd at all). */
    public record Image(byte[] config, byte[] manifest) {
        public String digest() {
            return Digest.sha256(manifest).toString();
        }
    }

    private TestImages() {}

    public static Image image(List<String> cmd) {
        String cmdJson = cmd.isEmpty()
                ? ""
                : ",\"config\":{\"Cmd\":["
                        + cmd.stream().map(c -> "\"" + c + "\"").collect(Collectors.joining(",")) + "]}";
        byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\"" + cmdJson
                        + ",\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"" + Digest.sha256(LAYER) + "\"]}}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                        + "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\""
                        + Digest.sha256(config)
                        + "\",\"size\":" + config.length
                        + "},\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar\",\"digest\":\""
                        + Digest.sha256(LAYER) + "\",\"size\":" + LAYER.length + "}]}")
                .getBytes(StandardCharsets.UTF_8);
        return new Image(config, manifest);
    }

    /** The default test image: runs {@code bench}. */
    public static final Image BENCH = image(List.of("bench"));

    /** Pushes {@code image} to {@code project}'s repository {@code path} ("" for the root) under {@code tag}; returns its digest. */
    public static String push(Path dataDir, ProjectUuid project, String path, String tag, Image image) {
        Path storage = dataDir.resolve("storage");
        try {
            Registry registry = new Registry(
                    DirectoryBlobStore.open(storage), ObjectRepositories.in(storage), null, 1 << 20, Clock.systemUTC());
            RepositoryKey repo = new RepositoryKey(project, path);
            registry.putBlob(repo, Digest.sha256(LAYER), new ByteArrayInputStream(LAYER));
            registry.putBlob(repo, Digest.sha256(image.config()), new ByteArrayInputStream(image.config()));
            registry.putManifest(repo, tag, image.manifest(), "application/vnd.oci.image.manifest.v1+json");
            return image.digest();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
