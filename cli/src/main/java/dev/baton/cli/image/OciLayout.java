package dev.baton.cli.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads one image out of an OCI image layout (a directory, or the same files in a tar: an OCI
 * archive, or what recent {@code docker save} writes). The image is picked from {@code index.json}
 * by its {@code org.opencontainers.image.ref.name} annotation, or is the only one there. Manifests
 * are checked against their digests, since they are read into memory anyway.
 */
final class OciLayout {
    static final String REF_NAME = "org.opencontainers.image.ref.name";
    static final long MAX_MANIFEST_BYTES = 4L * 1024 * 1024;
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}|sha512:[0-9a-f]{128}");
    private static final ObjectMapper JSON = new ObjectMapper();

    private OciLayout() {}

    static boolean looksLikeLayout(ImageFiles files) throws IOException {
        return files.size("oci-layout").isPresent() && files.size("index.json").isPresent();
    }

    static LocalImage read(ImageFiles files, String ref) throws IOException {
        JsonNode index = JSON.readTree(files.read("index.json", MAX_MANIFEST_BYTES));
        JsonNode manifests = index.path("manifests");
        if (!manifests.isArray() || manifests.isEmpty()) throw new ImageSourceException("index.json lists no images");
        JsonNode chosen = null;
        List<String> names = new ArrayList<>();
        for (JsonNode d : manifests) {
            String name = d.path("annotations").path(REF_NAME).asText(null);
            if (name != null) names.add(name);
            if (ref != null
                    && (ref.equals(name)
                            || ref.equals(d.path("annotations")
                                    .path("io.containerd.image.name")
                                    .asText(null)))) {
                chosen = d;
            }
        }
        if (ref != null && chosen == null)
            throw new ImageSourceException("no image named " + ref + " in the layout; it has " + names);
        if (chosen == null) {
            if (manifests.size() > 1)
                throw new ImageSourceException(
                        "the layout holds " + manifests.size() + " images " + names + "; pick one with --ref");
            chosen = manifests.get(0);
        }
        Map<String, LocalImage.Blob> blobs = new LinkedHashMap<>();
        List<LocalImage.Manifest> ordered = new ArrayList<>();
        collect(files, chosen, blobs, ordered, 0);
        return new LocalImage(blobs, ordered);
    }

    private static void collect(
            ImageFiles files,
            JsonNode descriptor,
            Map<String, LocalImage.Blob> blobs,
            List<LocalImage.Manifest> ordered,
            int depth)
            throws IOException {
        if (depth > 4) throw new ImageSourceException("image indexes nest too deeply");
        String digest = digestOf(descriptor);
        byte[] content = files.read(blobPath(digest), MAX_MANIFEST_BYTES);
        if (!digest.equals(digest(digest.substring(0, digest.indexOf(':')), content))) {
            throw new ImageSourceException("manifest " + digest + " does not match its digest");
        }
        JsonNode manifest = JSON.readTree(content);
        String mediaType = manifest.hasNonNull("mediaType")
                ? manifest.get("mediaType").asText()
                : descriptor
                        .path("mediaType")
                        .asText(manifest.has("manifests") ? ImagePusher.OCI_INDEX : ImagePusher.OCI_MANIFEST);
        if (manifest.has("manifests")) {
            for (JsonNode child : manifest.get("manifests")) collect(files, child, blobs, ordered, depth + 1);
        } else {
            List<JsonNode> referenced = new ArrayList<>();
            referenced.add(manifest.path("config"));
            manifest.path("layers").forEach(referenced::add);
            for (JsonNode d : referenced) {
                if (d.has("urls")) continue; // foreign layers are not pushed
                String blobDigest = digestOf(d);
                String path = blobPath(blobDigest);
                long size = files.size(path)
                        .orElseThrow(() -> new ImageSourceException("the layout lacks blob " + blobDigest));
                blobs.putIfAbsent(blobDigest, new LocalImage.Blob(blobDigest, size, () -> files.open(path)));
            }
        }
        ordered.add(new LocalImage.Manifest(digest, mediaType, content));
    }

    private static String digestOf(JsonNode descriptor) {
        String digest = descriptor.path("digest").asText("");
        if (!DIGEST.matcher(digest).matches())
            throw new ImageSourceException("invalid digest '" + digest + "' in the layout");
        return digest;
    }

    static String blobPath(String digest) {
        return "blobs/" + digest.replace(':', '/');
    }

    static String digest(String algorithm, byte[] content) {
        return algorithm + ":" + HexFormat.of().formatHex(hasher(algorithm).digest(content));
    }

    static String digest(String algorithm, InputStream in) throws IOException {
        MessageDigest hasher = hasher(algorithm);
        byte[] buffer = new byte[64 * 1024];
        int n;
        while ((n = in.read(buffer)) > 0) hasher.update(buffer, 0, n);
        return algorithm + ":" + HexFormat.of().formatHex(hasher.digest());
    }

    private static MessageDigest hasher(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm.equals("sha512") ? "SHA-512" : "SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
