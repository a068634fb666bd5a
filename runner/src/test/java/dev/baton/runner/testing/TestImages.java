package dev.baton.runner.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.value.ImageDigest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Builds OCI image layouts on disk for tests — the registry issue lands separately, so images
 * are made here from the host's static busybox ({@code busybox-static}) rather than pulled.
 */
public final class TestImages {
    public static final Path BUSYBOX = Path.of("/bin/busybox");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> APPLETS = List.of(
            "sh", "echo", "cat", "ls", "sleep", "head", "tr", "touch", "ln", "id", "ip", "true", "false", "dd", "rm",
            "mkdir", "wc", "grep");

    private TestImages() {}

    /** Busybox as one layer, plus the given extra layers (tar.gz). Config: Cmd, Env, no WorkingDir. */
    public static Image busybox(Path layout, List<String> cmd, List<byte[]> extraLayers) throws IOException {
        return busybox(layout, cmd, extraLayers, null);
    }

    /** The same with the config's {@code User} (null: none). */
    public static Image busybox(Path layout, List<String> cmd, List<byte[]> extraLayers, String user)
            throws IOException {
        TarWriter base = new TarWriter()
                .dir("bin", 0755)
                .file("bin/busybox", 0755, Files.readAllBytes(BUSYBOX))
                .dir("etc", 0755)
                .file("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nbench:x:1000:1000::/home:/bin/sh\n")
                .file("etc/group", "root:x:0:\nbench:x:1000:\n")
                .dir("tmp", 01777)
                .dir("proc", 0555)
                .dir("sys", 0555)
                .dir("dev", 0755)
                .dir("work", 0755);
        for (String applet : APPLETS) base.symlink("bin/" + applet, "busybox");
        List<byte[]> layers = new java.util.ArrayList<>();
        layers.add(base.tarGz());
        layers.addAll(extraLayers);
        return write(layout, cmd, layers, user);
    }

    public record Image(Path layout, ImageDigest digest, List<String> layerDigests) {}

    public static Image write(Path layout, List<String> cmd, List<byte[]> layers) throws IOException {
        return write(layout, cmd, layers, null);
    }

    public static Image write(Path layout, List<String> cmd, List<byte[]> layers, String user) throws IOException {
        Files.createDirectories(layout.resolve("blobs/sha256"));
        ObjectNode manifest = JSON.createObjectNode();
        manifest.put("schemaVersion", 2).put("mediaType", "application/vnd.oci.image.manifest.v1+json");
        ObjectNode config = JSON.createObjectNode();
        config.put("architecture", "amd64").put("os", "linux");
        ObjectNode c = config.putObject("config");
        ArrayNode cmdNode = c.putArray("Cmd");
        cmd.forEach(cmdNode::add);
        c.putArray("Env").add("PATH=/bin").add("IMAGE_VAR=from-image");
        if (user != null) c.put("User", user);
        config.putObject("rootfs").put("type", "layers").putArray("diff_ids");
        byte[] configBytes = JSON.writeValueAsBytes(config);
        manifest.putObject("config")
                .put("mediaType", "application/vnd.oci.image.config.v1+json")
                .put("digest", blob(layout, configBytes))
                .put("size", configBytes.length);
        ArrayNode layerNodes = manifest.putArray("layers");
        List<String> digests = new java.util.ArrayList<>();
        for (byte[] layer : layers) {
            String d = blob(layout, layer);
            digests.add(d);
            layerNodes
                    .addObject()
                    .put("mediaType", "application/vnd.oci.image.layer.v1.tar+gzip")
                    .put("digest", d)
                    .put("size", layer.length);
        }
        byte[] manifestBytes = JSON.writeValueAsBytes(manifest);
        String manifestDigest = blob(layout, manifestBytes);
        Files.writeString(layout.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
        return new Image(layout, ImageDigest.of(manifestDigest), digests);
    }

    public static String blob(Path layout, byte[] bytes) throws IOException {
        String hex = sha256(bytes);
        Files.write(layout.resolve("blobs/sha256").resolve(hex), bytes);
        return "sha256:" + hex;
    }

    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
