package dev.baton.cli.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A small OCI distribution client over {@code java.net.http}, enough to push: the version check
 * and its auth challenge (bearer token flow with basic credentials, or plain basic auth), blob
 * existence, two-step blob upload (POST, then PUT with the digest) and manifest PUT. Works
 * against any registry that follows the specification, not only Baton's.
 */
final class RegistryClient {
    private static final Pattern CHALLENGE_PARAM = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI server;
    private final String repository;
    private final String password;
    private String authorization;

    /** @param password the admin token (or a registry token); null to push anonymously */
    RegistryClient(HttpClient http, URI server, String repository, String password) {
        this.http = http;
        this.server = server;
        this.repository = repository;
        this.password = password;
    }

    /** Pings {@code /v2/} and, if challenged, obtains credentials for pull and push on the repository. */
    void login() throws IOException, InterruptedException {
        HttpResponse<byte[]> ping =
                send(HttpRequest.newBuilder(server.resolve("/v2/")).GET());
        if (ping.statusCode() == 200) return;
        if (ping.statusCode() != 401) throw failure("version check", ping);
        String challenge = ping.headers()
                .firstValue("WWW-Authenticate")
                .orElseThrow(() ->
                        new RegistryClientException("the registry refused access without saying how to authenticate"));
        if (password == null)
            throw new RegistryClientException(
                    "the registry wants credentials: pass --token, set BATON_ADMIN_TOKEN, or --token-file");
        String basic =
                "Basic " + Base64.getEncoder().encodeToString(("baton:" + password).getBytes(StandardCharsets.UTF_8));
        if (challenge.regionMatches(true, 0, "Basic", 0, 5)) {
            authorization = basic;
            return;
        }
        Map<String, String> params = new LinkedHashMap<>();
        Matcher m = CHALLENGE_PARAM.matcher(challenge);
        while (m.find()) params.put(m.group(1), m.group(2));
        String realm = params.get("realm");
        if (realm == null) throw new RegistryClientException("unsupported authentication challenge: " + challenge);
        StringBuilder url = new StringBuilder(realm).append(realm.contains("?") ? '&' : '?');
        if (params.containsKey("service"))
            url.append("service=").append(encode(params.get("service"))).append('&');
        url.append("scope=").append(encode("repository:" + repository + ":pull,push"));
        HttpResponse<byte[]> token = send(HttpRequest.newBuilder(URI.create(url.toString()))
                .header("Authorization", basic)
                .GET());
        if (token.statusCode() != 200) throw failure("token request", token);
        JsonNode body = JSON.readTree(token.body());
        String value = body.hasNonNull("token")
                ? body.get("token").asText()
                : body.path("access_token").asText(null);
        if (value == null) throw new RegistryClientException("the token endpoint answered without a token");
        authorization = "Bearer " + value;
    }

    boolean blobExists(String digest) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = send(
                request("/v2/" + repository + "/blobs/" + digest).method("HEAD", HttpRequest.BodyPublishers.noBody()));
        if (r.statusCode() == 200) return true;
        if (r.statusCode() == 404) return false;
        throw failure("checking blob " + digest, r);
    }

    void uploadBlob(LocalImage.Blob blob) throws IOException, InterruptedException {
        HttpResponse<byte[]> start =
                send(request("/v2/" + repository + "/blobs/uploads/").POST(HttpRequest.BodyPublishers.noBody()));
        if (start.statusCode() != 202) throw failure("starting the upload of " + blob.digest(), start);
        String location = start.headers()
                .firstValue("Location")
                .orElseThrow(() -> new RegistryClientException("the registry started an upload without a Location"));
        URI target = server.resolve(location);
        String separator = target.getRawQuery() == null ? "?" : "&";
        URI put = URI.create(target + separator + "digest=" + encode(blob.digest()));
        HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> {
                    try {
                        return blob.content().open();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }),
                blob.size());
        HttpResponse<byte[]> done = send(authorized(HttpRequest.newBuilder(put))
                .header("Content-Type", "application/octet-stream")
                .PUT(body));
        if (done.statusCode() != 201) throw failure("uploading " + blob.digest(), done);
    }

    /** Puts a manifest under a tag or digest; returns the digest the registry computed. */
    String putManifest(String reference, LocalImage.Manifest manifest) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = send(request("/v2/" + repository + "/manifests/" + reference)
                .header("Content-Type", manifest.mediaType())
                .PUT(HttpRequest.BodyPublishers.ofByteArray(manifest.content())));
        if (r.statusCode() != 201) throw failure("putting manifest " + reference, r);
        return r.headers().firstValue("Docker-Content-Digest").orElse(manifest.digest());
    }

    private HttpRequest.Builder request(String path) {
        return authorized(HttpRequest.newBuilder(server.resolve(path)));
    }

    private HttpRequest.Builder authorized(HttpRequest.Builder builder) {
        if (authorization != null) builder.header("Authorization", authorization);
        return builder.timeout(Duration.ofMinutes(30));
    }

    private HttpResponse<byte[]> send(HttpRequest.Builder builder) throws IOException, InterruptedException {
        try {
            return http.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (java.net.ConnectException e) {
            throw new RegistryClientException("cannot reach " + server + ": " + e.getMessage());
        }
    }

    private static RegistryClientException failure(String what, HttpResponse<byte[]> response) {
        String detail = new String(response.body(), StandardCharsets.UTF_8);
        try {
            JsonNode error = JSON.readTree(response.body()).path("errors").path(0);
            if (!error.isMissingNode())
                detail = error.path("code").asText() + ": "
                        + error.path("message").asText();
        } catch (IOException e) {
            // Not a registry error document: show the body as it is.
        }
        return new RegistryClientException(what + " failed with HTTP " + response.statusCode()
                + (detail.isBlank() ? "" : " (" + detail.strip() + ")"));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
