package dev.baton.registry;

import dev.baton.store.blob.Digest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * A small, valid OCI image built by hand: one uncompressed and one gzip layer (real tar files),
 * an image config whose diff_ids match, and the manifest. Can write itself as an OCI layout.
 */
final class TestImage {
    final List<byte[]> layers = new ArrayList<>();
    final List<String> layerTypes = new ArrayList<>();
    final byte[] config;
    final byte[] manifest;

    TestImage(String seed) throws IOException {
        byte[] plain = tar(Map.of("hello.txt", ("hello " + seed + "\n").getBytes(StandardCharsets.UTF_8)));
        byte[] second = tar(
                Map.of("data/numbers.txt", ("1 2 3 " + seed + "\n").repeat(500).getBytes(StandardCharsets.UTF_8)));
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(second);
        }
        layers.add(plain);
        layerTypes.add("application/vnd.oci.image.layer.v1.tar");
        layers.add(gz.toByteArray());
        layerTypes.add("application/vnd.oci.image.layer.v1.tar+gzip");
        config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Cmd\":[\"/bin/true\"]},"
                        + "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"" + Digest.sha256(plain) + "\",\""
                        + Digest.sha256(second) + "\"]}}")
                .getBytes(StandardCharsets.UTF_8);
        StringBuilder m = new StringBuilder(
                        "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",")
                .append("\"config\":")
                .append(descriptor("application/vnd.oci.image.config.v1+json", config))
                .append(",\"layers\":[");
        for (int i = 0; i < layers.size(); i++) {
            if (i > 0) m.append(',');
            m.append(descriptor(layerTypes.get(i), layers.get(i)));
        }
        manifest = m.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    Digest digest() {
        return Digest.sha256(manifest);
    }

    List<byte[]> blobs() {
        List<byte[]> all = new ArrayList<>(layers);
        all.add(config);
        return all;
    }

    static String descriptor(String mediaType, byte[] content) {
        return "{\"mediaType\":\"" + mediaType + "\",\"digest\":\"" + Digest.sha256(content) + "\",\"size\":"
                + content.length + "}";
    }

    /** Writes an OCI image layout with this image tagged {@code ref}. */
    void writeLayout(Path dir, String ref) throws IOException {
        Path blobs = dir.resolve("blobs").resolve("sha256");
        Files.createDirectories(blobs);
        Files.writeString(dir.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        for (byte[] blob : blobs())
            Files.write(blobs.resolve(Digest.sha256(blob).hex()), blob);
        Files.write(blobs.resolve(digest().hex()), manifest);
        String index = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":[{"
                + "\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" + digest()
                + "\",\"size\":"
                + manifest.length + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\"" + ref + "\"}}]}";
        Files.writeString(dir.resolve("index.json"), index);
    }

    /** A tar archive (Commons Compress) of regular files, in name order. */
    static byte[] tar(Map<String, byte[]> files) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            for (var entry : new java.util.TreeMap<>(files).entrySet()) {
                TarArchiveEntry e = new TarArchiveEntry(entry.getKey());
                e.setSize(entry.getValue().length);
                e.setModTime(1_700_000_000_000L);
                tar.putArchiveEntry(e);
                tar.write(entry.getValue());
                tar.closeArchiveEntry();
            }
        }
        return out.toByteArray();
    }
}
