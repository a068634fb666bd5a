package dev.baton.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.store.blob.Digest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the registry needs to know about a manifest: its media type, the blobs (config and
 * layers) or child manifests it references, its subject and artifact type for the referrers API.
 */
record ParsedManifest(
        String mediaType,
        List<Reference> blobs,
        List<Reference> children,
        Optional<Digest> subject,
        String artifactType,
        Map<String, String> annotations) {

    /** A descriptor the manifest points at. */
    record Reference(Digest digest, long size, String mediaType, boolean foreign) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Parses and validates a manifest body. {@code contentType} is the request's Content-Type,
     * considered only when it is one of the manifest types (clients such as curl send defaults).
     */
    static ParsedManifest parse(byte[] body, String contentType) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw invalid("manifest is not valid JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) throw invalid("manifest must be a JSON object");
        if (root.path("schemaVersion").asInt(-1) != 2) throw invalid("manifest schemaVersion must be 2");
        String declared = root.hasNonNull("mediaType") ? root.get("mediaType").asText() : null;
        String header = contentType == null ? null : contentType.split(";", 2)[0].trim();
        if (header != null && !MediaTypes.MANIFESTS.contains(header)) header = null;
        if (declared != null && header != null && !declared.equals(header)) {
            throw invalid("Content-Type " + header + " does not match the manifest's mediaType " + declared);
        }
        String mediaType = declared != null
                ? declared
                : header != null ? header : root.has("manifests") ? MediaTypes.OCI_INDEX : MediaTypes.OCI_MANIFEST;
        if (!MediaTypes.MANIFESTS.contains(mediaType)) throw invalid("unsupported manifest media type " + mediaType);

        List<Reference> blobs = new ArrayList<>();
        List<Reference> children = new ArrayList<>();
        String artifactType =
                root.hasNonNull("artifactType") ? root.get("artifactType").asText() : null;
        if (MediaTypes.INDEXES.contains(mediaType)) {
            JsonNode manifests = root.get("manifests");
            if (manifests == null || !manifests.isArray()) throw invalid("an index needs a manifests array");
            for (JsonNode d : manifests) children.add(reference(d, "manifests[]"));
        } else {
            JsonNode config = root.get("config");
            if (config == null || !config.isObject()) throw invalid("an image manifest needs a config descriptor");
            Reference configRef = reference(config, "config");
            blobs.add(configRef);
            JsonNode layers = root.get("layers");
            if (layers == null || !layers.isArray()) throw invalid("an image manifest needs a layers array");
            for (JsonNode d : layers) blobs.add(reference(d, "layers[]"));
            // The referrers API reports the config media type when no artifactType is set (image spec 1.1).
            if (artifactType == null) artifactType = configRef.mediaType();
        }
        Optional<Digest> subject = Optional.empty();
        if (root.hasNonNull("subject"))
            subject = Optional.of(reference(root.get("subject"), "subject").digest());
        Map<String, String> annotations = null;
        if (root.has("annotations") && root.get("annotations").isObject()) {
            annotations = new LinkedHashMap<>();
            for (var field : (Iterable<Map.Entry<String, JsonNode>>) root.get("annotations")::fields) {
                annotations.put(field.getKey(), field.getValue().asText());
            }
        }
        return new ParsedManifest(mediaType, blobs, children, subject, artifactType, annotations);
    }

    private static Reference reference(JsonNode node, String where) {
        if (node == null || !node.isObject()) throw invalid(where + " must be a descriptor object");
        Digest digest = Digest.parse(node.path("digest").asText(null))
                .orElseThrow(() -> invalid(
                        where + " has an invalid digest " + node.path("digest").asText("")));
        JsonNode size = node.get("size");
        if (size == null || !size.canConvertToLong() || size.asLong() < 0)
            throw invalid(where + " needs a non-negative size");
        String mediaType = node.hasNonNull("mediaType") ? node.get("mediaType").asText() : null;
        boolean foreign = MediaTypes.foreignLayer(mediaType) && node.has("urls");
        return new Reference(digest, size.asLong(), mediaType, foreign);
    }

    private static RegistryException invalid(String message) {
        return new RegistryException(ErrorCode.MANIFEST_INVALID, message);
    }
}
