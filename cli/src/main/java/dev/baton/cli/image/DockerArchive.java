package dev.baton.cli.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts a {@code docker save} / {@code podman save} archive ({@code manifest.json}, an image
 * config, one tar per layer) into an OCI image manifest. The config is pushed as is (Docker's
 * image config is the OCI image config); each layer file is pushed as is, its media type chosen
 * from its first bytes (plain tar, gzip or zstd), so the config's diff_ids still hold.
 */
final class DockerArchive {
    private static final ObjectMapper JSON = new ObjectMapper();

    private DockerArchive() {}

    static boolean looksLikeArchive(ImageFiles files) throws IOException {
        return files.size("manifest.json").isPresent();
    }

    static LocalImage read(ImageFiles files, String ref) throws IOException {
        JsonNode entries = JSON.readTree(files.read("manifest.json", OciLayout.MAX_MANIFEST_BYTES));
        if (!entries.isArray() || entries.isEmpty()) throw new ImageSourceException("manifest.json lists no images");
        JsonNode chosen = null;
        List<String> tags = new ArrayList<>();
        for (JsonNode entry : entries) {
            for (JsonNode tag : entry.path("RepoTags")) {
                tags.add(tag.asText());
                if (ref != null && (tag.asText().equals(ref) || tag.asText().endsWith("/" + ref))) chosen = entry;
            }
        }
        if (ref != null && chosen == null)
            throw new ImageSourceException("no image tagged " + ref + " in the archive; it has " + tags);
        if (chosen == null) {
            if (entries.size() > 1)
                throw new ImageSourceException(
                        "the archive holds " + entries.size() + " images " + tags + "; pick one with --ref");
            chosen = entries.get(0);
        }
        Map<String, LocalImage.Blob> blobs = new LinkedHashMap<>();
        String configPath = chosen.path("Config").asText(null);
        if (configPath == null) throw new ImageSourceException("manifest.json names no Config");
        byte[] config = files.read(configPath, OciLayout.MAX_MANIFEST_BYTES);
        String configDigest = OciLayout.digest("sha256", config);
        blobs.put(
                configDigest,
                new LocalImage.Blob(configDigest, config.length, () -> new java.io.ByteArrayInputStream(config)));

        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("schemaVersion", 2);
        manifest.put("mediaType", ImagePusher.OCI_MANIFEST);
        manifest.set("config", descriptor("application/vnd.oci.image.config.v1+json", configDigest, config.length));
        ArrayNode layers = manifest.putArray("layers");
        for (JsonNode layer : chosen.path("Layers")) {
            String path = layer.asText();
            long size = files.size(path).orElseThrow(() -> new ImageSourceException("the archive lacks layer " + path));
            String digest;
            String mediaType;
            try (InputStream in = files.open(path)) {
                mediaType = layerMediaType(in);
            }
            try (InputStream in = files.open(path)) {
                digest = OciLayout.digest("sha256", in);
            }
            layers.add(descriptor(mediaType, digest, size));
            blobs.putIfAbsent(digest, new LocalImage.Blob(digest, size, () -> files.open(path)));
        }
        byte[] content = JSON.writeValueAsBytes(manifest);
        LocalImage.Manifest top =
                new LocalImage.Manifest(OciLayout.digest("sha256", content), ImagePusher.OCI_MANIFEST, content);
        return new LocalImage(blobs, List.of(top));
    }

    private static ObjectNode descriptor(String mediaType, String digest, long size) {
        ObjectNode d = JSON.createObjectNode();
        d.put("mediaType", mediaType);
        d.put("digest", digest);
        d.put("size", size);
        return d;
    }

    /** The layer's media type from its magic bytes. */
    static String layerMediaType(InputStream in) throws IOException {
        byte[] magic = in.readNBytes(4);
        if (magic.length >= 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b) {
            return "application/vnd.oci.image.layer.v1.tar+gzip";
        }
        if (magic.length == 4
                && (magic[0] & 0xff) == 0x28
                && (magic[1] & 0xff) == 0xb5
                && (magic[2] & 0xff) == 0x2f
                && (magic[3] & 0xff) == 0xfd) {
            return "application/vnd.oci.image.layer.v1.tar+zstd";
        }
        return "application/vnd.oci.image.layer.v1.tar";
    }
}
