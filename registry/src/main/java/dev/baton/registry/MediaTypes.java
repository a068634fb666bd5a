package dev.baton.registry;

import java.util.Set;

/** The manifest media types the registry stores, and the layer types it never expects to hold. */
final class MediaTypes {
    static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";
    static final String DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";
    static final String DOCKER_MANIFEST_LIST = "application/vnd.docker.distribution.manifest.list.v2+json";
    static final Set<String> MANIFESTS = Set.of(OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST);
    static final Set<String> INDEXES = Set.of(OCI_INDEX, DOCKER_MANIFEST_LIST);

    private MediaTypes() {}

    /** Layers that live elsewhere (their descriptor carries urls) and are not pushed to a registry. */
    static boolean foreignLayer(String mediaType) {
        return mediaType != null
                && (mediaType.startsWith("application/vnd.oci.image.layer.nondistributable.")
                        || mediaType.equals("application/vnd.docker.image.rootfs.foreign.diff.tar.gzip"));
    }
}
