package dev.baton.runner.oci;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * Pulls an image by digest and verifies every byte: the manifest (or index) against the
 * requested digest, the config and every layer against the digests and sizes the manifest names.
 * Verified blobs are kept in a content-addressed cache (written to a temporary file and renamed
 * only after the check), so a second job with the same layers pulls nothing.
 */
public final class ImagePuller {
    private static final int MAX_MANIFEST = 4 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    public record Layer(String digest, String mediaType, Path blob) {}

    public record PulledImage(ImageConfig config, List<Layer> layers) {}

    private final Path cache;
    private final Architecture arch;

    public ImagePuller(Path cache, Architecture arch) {
        this.cache = cache;
        this.arch = arch;
    }

    public PulledImage pull(BlobSource source, ImageDigest digest, Consumer<String> progress)
            throws IOException, PullDeniedException, LayerException {
        progress.accept("pulling manifest");
        JsonNode manifest = manifest(source, digest.value());
        if (manifest.has("manifests")) {
            String chosen = choosePlatform(manifest);
            manifest = manifest(source, chosen);
        }
        JsonNode configDescriptor = manifest.path("config");
        if (!configDescriptor.has("digest")) throw new LayerException("manifest has no config");
        JsonNode layers = manifest.path("layers");
        long needed = configDescriptor.path("size").asLong();
        for (JsonNode l : layers) needed += l.path("size").asLong();
        Files.createDirectories(cache);
        long usable = Files.getFileStore(cache).getUsableSpace();
        if (usable < needed)
            throw new DiskFullException("disk full: image needs " + needed + " bytes, " + usable + " free");

        Path configBlob = fetch(source, configDescriptor);
        ImageConfig config = ImageConfig.parse(JSON.readTree(configBlob.toFile()));
        if (config.architecture() != null && !config.architecture().equals(ociArch(arch))) {
            throw new LayerException("image architecture " + config.architecture() + " does not match this runner ("
                    + ociArch(arch) + ")");
        }
        List<Layer> out = new ArrayList<>();
        int i = 0;
        for (JsonNode l : layers) {
            progress.accept("pulling layer " + (++i) + "/" + layers.size());
            out.add(new Layer(l.path("digest").asText(), l.path("mediaType").asText(null), fetch(source, l)));
        }
        return new PulledImage(config, out);
    }

    static String ociArch(Architecture a) {
        return switch (a) {
            case X86_64 -> "amd64";
            case AARCH64 -> "arm64";
        };
    }

    private String choosePlatform(JsonNode index) throws LayerException {
        for (JsonNode m : index.path("manifests")) {
            JsonNode p = m.path("platform");
            if ("linux".equals(p.path("os").asText())
                    && ociArch(arch).equals(p.path("architecture").asText())) {
                return m.path("digest").asText();
            }
        }
        throw new LayerException("the image has no linux/" + ociArch(arch) + " variant");
    }

    private JsonNode manifest(BlobSource source, String digest)
            throws IOException, PullDeniedException, LayerException {
        byte[] bytes;
        try (InputStream in = source.manifest(digest)) {
            bytes = in.readNBytes(MAX_MANIFEST + 1);
        }
        if (bytes.length > MAX_MANIFEST) throw new LayerException("manifest larger than " + MAX_MANIFEST + " bytes");
        String actual = "sha256:" + sha256(bytes);
        if (!actual.equals(digest))
            throw new LayerException("manifest digest mismatch: expected " + digest + ", got " + actual);
        return JSON.readTree(bytes);
    }

    private Path fetch(BlobSource source, JsonNode descriptor) throws IOException, PullDeniedException, LayerException {
        String digest = descriptor.path("digest").asText();
        long size = descriptor.path("size").asLong(-1);
        if (!digest.matches("sha256:[0-9a-f]{64}")) throw new LayerException("unsupported digest '" + digest + "'");
        if (size < 0) throw new LayerException("descriptor without size for " + digest);
        Path target = cache.resolve(digest.substring(7));
        if (Files.isRegularFile(target) && Files.size(target) == size) return target;
        Path tmp = Files.createTempFile(cache, "pull-", ".tmp");
        try {
            MessageDigest sha = sha();
            long total = 0;
            try (InputStream in = source.blob(digest);
                    OutputStream out = Files.newOutputStream(tmp)) {
                byte[] buf = new byte[1 << 16];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    total += n;
                    if (total > size)
                        throw new LayerException(
                                "blob " + digest + " is larger than its descriptor says (" + size + ")");
                    sha.update(buf, 0, n);
                    out.write(buf, 0, n);
                }
            }
            String actual = "sha256:" + HexFormat.of().formatHex(sha.digest());
            if (total != size || !actual.equals(digest)) {
                throw new LayerException("blob digest mismatch: expected " + digest + " (" + size + " bytes), got "
                        + actual + " (" + total + " bytes)");
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            if (DiskFullException.isDiskFull(e) && !(e instanceof DiskFullException))
                throw new DiskFullException("disk full while pulling " + digest);
            throw e;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha().digest(bytes));
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
