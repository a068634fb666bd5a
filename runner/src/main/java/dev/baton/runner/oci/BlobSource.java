package dev.baton.runner.oci;

import java.io.IOException;
import java.io.InputStream;

/** Where image content comes from: a registry, or a local OCI image layout (tests, air-gapped runners). */
public interface BlobSource {
    /** The manifest (or index) stored under this digest; the caller verifies the digest. */
    InputStream manifest(String digest) throws IOException, PullDeniedException;

    /** A blob by digest; the caller verifies the digest. */
    InputStream blob(String digest) throws IOException, PullDeniedException;
}
