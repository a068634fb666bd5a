package dev.baton.runner.oci;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Pulls from an OCI distribution registry ({@code /v2/{name}/manifests|blobs/{digest}}) with the
 * job's short-lived pull token as a bearer token. A token the registry refuses (401, 403) is
 * refreshed once through {@link PullCredentials} and the request repeated (issue 41), so a pull
 * that outlives its token goes on. Redirects (to blob storage) are followed by the client; the
 * digest check of the caller makes any content from anywhere trustworthy or rejected.
 */
public final class RegistryBlobSource implements BlobSource {
    static final String ACCEPT = String.join(
            ", ",
            "application/vnd.oci.image.manifest.v1+json",
            "application/vnd.oci.image.index.v1+json",
            "application/vnd.docker.distribution.manifest.v2+json",
            "application/vnd.docker.distribution.manifest.list.v2+json");

    private final HttpClient http;
    private final URI base;
    private final String repository;
    private final PullCredentials credentials;

    /**
     * @param registry the job's {@code registry}: a base URL, or a host[:port] (then https)
     * @param repository the repository name (the project)
     */
    public RegistryBlobSource(HttpClient http, String registry, String repository, String token) {
        this(http, registry, repository, PullCredentials.fixed(token));
    }

    /** With a token that is refreshed when the registry refuses it. */
    public RegistryBlobSource(HttpClient http, String registry, String repository, PullCredentials credentials) {
        this.http = http;
        String b = registry.contains("://") ? registry : "https://" + registry;
        this.base = URI.create(b.replaceAll("/+$", ""));
        this.repository = repository;
        this.credentials = credentials;
    }

    @Override
    public InputStream manifest(String digest) throws IOException, PullDeniedException {
        return get("/v2/" + repository + "/manifests/" + digest, ACCEPT);
    }

    @Override
    public InputStream blob(String digest) throws IOException, PullDeniedException {
        return get("/v2/" + repository + "/blobs/" + digest, "*/*");
    }

    private InputStream get(String path, String accept) throws IOException, PullDeniedException {
        String token = credentials.current();
        try {
            HttpResponse<InputStream> response = send(path, accept, token);
            int status = response.statusCode();
            if ((status == 401 || status == 403) && token != null && !token.isEmpty()) {
                // Expired, most likely: a fresh token for the same job, once; refused again, the pull is denied.
                var fresh = credentials.refresh(token);
                if (fresh.isPresent()) {
                    response.body().close();
                    response = send(path, accept, fresh.get());
                    status = response.statusCode();
                }
            }
            if (status == 200) return response.body();
            response.body().close();
            if (status == 401 || status == 403 || status == 404) {
                throw new PullDeniedException(
                        "image pull denied: " + path.substring(path.lastIndexOf('/') + 1) + " answered HTTP " + status);
            }
            throw new IOException("registry answered HTTP " + status + " for " + path);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private HttpResponse<InputStream> send(String path, String accept, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofMinutes(10))
                .header("Accept", accept)
                .GET();
        if (token != null && !token.isEmpty()) request.header("Authorization", "Bearer " + token);
        return http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    }
}
