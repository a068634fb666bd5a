package dev.baton.server.registry;

import dev.baton.server.blob.Digest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

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
        byte[] second = tar(Map.of("data/numbers.txt", ("1 2 3 " + seed + "\n").repeat(500).getBytes(StandardCharsets.UTF_8)));
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(second);
        }
        layers.add(plain);
        layerTypes.add("application/vnd.oci.image.layer.v1.tar");
        layers.add(gz.toByteArray());
        layerTypes.add("application/vnd.oci.image.layer.v1.tar+gzip");
        config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Cmd\":[\"/bin/true\"]},"
                + "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"" + Digest.sha256(plain) + "\",\"" + Digest.sha256(second) + "\"]}}")
                .getBytes(StandardCharsets.UTF_8);
        StringBuilder m = new StringBuilder("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",")
                .append("\"config\":").append(descriptor("application/vnd.oci.image.config.v1+json", config)).append(",\"layers\":[");
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
        return "{\"mediaType\":\"" + mediaType + "\",\"digest\":\"" + Digest.sha256(content) + "\",\"size\":" + content.length + "}";
    }

    /** Writes an OCI image layout with this image tagged {@code ref}. */
    void writeLayout(Path dir, String ref) throws IOException {
        Path blobs = dir.resolve("blobs").resolve("sha256");
        Files.createDirectories(blobs);
        Files.writeString(dir.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        for (byte[] blob : blobs()) Files.write(blobs.resolve(Digest.sha256(blob).hex()), blob);
        Files.write(blobs.resolve(digest().hex()), manifest);
        String index = "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":[{"
                + "\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" + digest() + "\",\"size\":"
                + manifest.length + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\"" + ref + "\"}}]}";
        Files.writeString(dir.resolve("index.json"), index);
    }

    /** A minimal ustar archive of regular files. */
    static byte[] tar(Map<String, byte[]> files) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (var entry : new java.util.TreeMap<>(files).entrySet()) {
            byte[] header = new byte[512];
            put(header, 0, entry.getKey());
            put(header, 100, "0000644");
            put(header, 108, "0000000");
            put(header, 116, "0000000");
            put(header, 124, String.format("%011o", entry.getValue().length));
            put(header, 136, String.format("%011o", 1_700_000_000L));
            header[156] = '0';
            put(header, 257, "ustar");
            put(header, 263, "00");
            for (int i = 148; i < 156; i++) header[i] = ' ';
            int sum = 0;
            for (byte b : header) sum += b & 0xff;
            put(header, 148, String.format("%06o", sum));
            header[154] = 0;
            header[155] = ' ';
            out.write(header);
            out.write(entry.getValue());
            int pad = (512 - entry.getValue().length % 512) % 512;
            out.write(new byte[pad]);
        }
        out.write(new byte[1024]);
        return out.toByteArray();
    }

    private static void put(byte[] header, int offset, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, header, offset, bytes.length);
    }
}
