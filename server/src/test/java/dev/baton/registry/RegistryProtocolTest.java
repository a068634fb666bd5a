package dev.baton.registry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.store.blob.Digest;
import dev.baton.store.token.RegistryTokens;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The distribution API over real HTTP: uploads, manifests, tags, referrers, errors and auth. */
class RegistryProtocolTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    RegistryFixture registry;

    @BeforeEach
    void setUp() throws Exception {
        registry = RegistryFixture.start(tmp.resolve("data"));
    }

    @AfterEach
    void tearDown() {
        registry.close();
    }

    // ---- helpers ----------------------------------------------------------------------------

    static JsonNode error(HttpResponse<byte[]> response) throws Exception {
        return JSON.readTree(response.body()).get("errors").get(0);
    }

    void pushBlob(String repo, byte[] content) throws Exception {
        HttpResponse<byte[]> r =
                registry.admin("POST", "/v2/" + repo + "/blobs/uploads/?digest=" + Digest.sha256(content), content);
        assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(201);
    }

    HttpResponse<byte[]> putManifest(String repo, String ref, byte[] manifest, String mediaType) throws Exception {
        return registry.admin("PUT", "/v2/" + repo + "/manifests/" + ref, manifest, "Content-Type", mediaType);
    }

    void pushImage(String repo, TestImage image, String tag) throws Exception {
        for (byte[] blob : image.blobs()) pushBlob(repo, blob);
        HttpResponse<byte[]> r = putManifest(repo, tag, image.manifest, "application/vnd.oci.image.manifest.v1+json");
        assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(201);
    }

    long storedBlobFiles() throws Exception {
        Path blobs = registry.dataDir.resolve("storage/blobs");
        if (!Files.exists(blobs)) return 0;
        try (Stream<Path> files = Files.walk(blobs)) {
            return files.filter(Files::isRegularFile).count();
        }
    }

    // ---- auth -------------------------------------------------------------------------------

    @Test
    void versionCheckChallengesWithTheTokenRealm() throws Exception {
        HttpResponse<byte[]> anonymous = registry.send("GET", "/v2/", null, null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.headers().firstValue("WWW-Authenticate"))
                .hasValue("Bearer realm=\"" + registry.base() + "/v2/token\",service=\"baton\"");
        assertThat(error(anonymous).get("code").asText()).isEqualTo("UNAUTHORIZED");
        assertThat(anonymous.headers().firstValue("Docker-Distribution-API-Version"))
                .hasValue("registry/2.0");

        HttpResponse<byte[]> blob =
                registry.send("HEAD", "/v2/alpha/img/blobs/" + Digest.sha256(new byte[1]), null, null);
        assertThat(blob.statusCode()).isEqualTo(401);
        assertThat(blob.headers().firstValue("WWW-Authenticate").orElseThrow())
                .endsWith("scope=\"repository:alpha/img:pull\"");

        assertThat(registry.admin("GET", "/v2/", null).statusCode()).isEqualTo(200);
        assertThat(registry.send("GET", "/v2/", "Bearer " + RegistryFixture.ADMIN, null)
                        .statusCode())
                .isEqualTo(200);
        assertThat(registry.send("GET", "/v2/", "Bearer not-a-token", null).statusCode())
                .isEqualTo(401);
        assertThat(registry.send("GET", "/v2/", RegistryFixture.basic("wrong"), null)
                        .statusCode())
                .isEqualTo(401);
    }

    @Test
    void tokenEndpointGrantsExactlyTheRequestedScopes() throws Exception {
        HttpResponse<byte[]> refused = registry.send(
                "GET",
                "/v2/token?service=baton&scope=repository:alpha/img:pull,push",
                RegistryFixture.basic("wrong"),
                null);
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(registry.send("GET", "/v2/token?scope=repository:alpha/img:pull", null, null)
                        .statusCode())
                .isEqualTo(401);

        HttpResponse<byte[]> issued =
                registry.admin("GET", "/v2/token?service=baton&scope=repository:alpha/img:pull,push", null);
        assertThat(issued.statusCode()).isEqualTo(200);
        JsonNode body = JSON.readTree(issued.body());
        String token = body.get("token").asText();
        assertThat(body.get("access_token").asText()).isEqualTo(token);
        assertThat(body.get("expires_in").asLong()).isEqualTo(900);
        assertThat(body.get("issued_at").asText()).isEqualTo("2026-01-01T00:00:00Z");

        byte[] blob = "scoped".getBytes(StandardCharsets.UTF_8);
        String bearer = "Bearer " + token;
        assertThat(registry.send("POST", "/v2/alpha/img/blobs/uploads/?digest=" + Digest.sha256(blob), bearer, blob)
                        .statusCode())
                .isEqualTo(201);
        // The slug and the UUID name the same repository, so the token covers both spellings.
        assertThat(registry.send("HEAD", "/v2/" + registry.alpha + "/img/blobs/" + Digest.sha256(blob), bearer, null)
                        .statusCode())
                .isEqualTo(200);
        HttpResponse<byte[]> otherRepo =
                registry.send("HEAD", "/v2/alpha/other/blobs/" + Digest.sha256(blob), bearer, null);
        assertThat(otherRepo.statusCode()).isEqualTo(401);
        assertThat(otherRepo.headers().firstValue("WWW-Authenticate").orElseThrow())
                .contains("error=\"insufficient_scope\"");
        assertThat(registry.send("HEAD", "/v2/beta/img/blobs/" + Digest.sha256(blob), bearer, null)
                        .statusCode())
                .isEqualTo(401);
        // Pull and push were asked for, not delete.
        assertThat(registry.send("DELETE", "/v2/alpha/img/blobs/" + Digest.sha256(blob), bearer, null)
                        .statusCode())
                .isEqualTo(401);

        registry.clock.advance(Duration.ofMinutes(16));
        assertThat(registry.send("HEAD", "/v2/alpha/img/blobs/" + Digest.sha256(blob), bearer, null)
                        .statusCode())
                .isEqualTo(401);
    }

    @Test
    void oauthPasswordGrantIssuesTokensToo() throws Exception {
        String form = "grant_type=password&username=baton&password=" + RegistryFixture.ADMIN
                + "&scope=repository:alpha/img:pull&service=baton";
        HttpResponse<byte[]> issued = registry.send(
                "POST",
                "/v2/token",
                null,
                form.getBytes(StandardCharsets.UTF_8),
                "Content-Type",
                "application/x-www-form-urlencoded");
        assertThat(issued.statusCode()).as(new String(issued.body())).isEqualTo(200);
        String token = JSON.readTree(issued.body()).get("access_token").asText();
        assertThat(registry.send("GET", "/v2/alpha/img/tags/list", "Bearer " + token, null)
                        .statusCode())
                .isEqualTo(404);

        HttpResponse<byte[]> refresh = registry.send(
                "POST",
                "/v2/token",
                null,
                "grant_type=refresh_token&refresh_token=x".getBytes(StandardCharsets.UTF_8),
                "Content-Type",
                "application/x-www-form-urlencoded");
        assertThat(refresh.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(refresh.body()).get("error").asText()).isEqualTo("unsupported_grant_type");
    }

    @Test
    void projectPullTokensPullOneProjectOnlyAndExpire() throws Exception {
        TestImage image = new TestImage("runner");
        pushImage("alpha/img", image, "v1");
        pushImage("beta/img", image, "v1");
        String alphaToken = "Bearer " + registry.pullToken(registry.alpha);

        HttpResponse<byte[]> pulled =
                registry.send("GET", "/v2/alpha/img/manifests/" + image.digest(), alphaToken, null);
        assertThat(pulled.statusCode()).isEqualTo(200);
        assertThat(pulled.body()).isEqualTo(image.manifest);
        // The same content exists in beta, but this token sees nothing of it.
        HttpResponse<byte[]> other = registry.send("GET", "/v2/beta/img/manifests/" + image.digest(), alphaToken, null);
        assertThat(other.statusCode()).isEqualTo(401);
        assertThat(new String(other.body())).doesNotContain("schemaVersion");
        assertThat(registry.send("GET", "/v2/beta/img/blobs/" + Digest.sha256(image.config), alphaToken, null)
                        .statusCode())
                .isEqualTo(401);
        // Unknown projects look the same as forbidden ones to a token that does not cover them.
        assertThat(registry.send("GET", "/v2/gamma/img/manifests/v1", alphaToken, null)
                        .statusCode())
                .isEqualTo(401);
        // Pull only.
        assertThat(registry.send("POST", "/v2/alpha/img/blobs/uploads/", alphaToken, null)
                        .statusCode())
                .isEqualTo(401);
        assertThat(registry.send("DELETE", "/v2/alpha/img/manifests/v1", alphaToken, null)
                        .statusCode())
                .isEqualTo(401);
        // Also usable as a basic password.
        assertThat(registry.send(
                                "GET",
                                "/v2/alpha/img/manifests/v1",
                                RegistryFixture.basic(registry.pullToken(registry.alpha)),
                                null)
                        .statusCode())
                .isEqualTo(200);

        registry.clock.advance(RegistryTokens.USER_TOKEN_TTL);
        assertThat(registry.send("GET", "/v2/alpha/img/manifests/v1", alphaToken, null)
                        .statusCode())
                .isEqualTo(401);
    }

    @Test
    void theProjectRootAnswersByDigestForEveryRepositoryOfTheProject() throws Exception {
        // A job names only project and digest, so runners pull <project>@<digest>.
        TestImage image = new TestImage("root");
        pushImage("alpha/tools/bench", image, "v1");
        String token = "Bearer " + registry.pullToken(registry.alpha);
        HttpResponse<byte[]> manifest =
                registry.send("GET", "/v2/" + registry.alpha + "/manifests/" + image.digest(), token, null);
        assertThat(manifest.statusCode()).isEqualTo(200);
        assertThat(manifest.body()).isEqualTo(image.manifest);
        assertThat(manifest.headers().firstValue("Content-Type"))
                .hasValue("application/vnd.oci.image.manifest.v1+json");
        for (byte[] blob : image.blobs()) {
            assertThat(registry.send("GET", "/v2/" + registry.alpha + "/blobs/" + Digest.sha256(blob), token, null)
                            .body())
                    .isEqualTo(blob);
        }
        // By digest only: tags stay per repository, and the root cannot delete what others hold.
        assertThat(registry.send("GET", "/v2/alpha/manifests/v1", token, null).statusCode())
                .isEqualTo(404);
        assertThat(registry.admin("DELETE", "/v2/alpha/manifests/" + image.digest(), null)
                        .statusCode())
                .isEqualTo(404);
        // Other repositories do not see it, and neither does another project's root.
        assertThat(registry.admin("GET", "/v2/alpha/other/manifests/" + image.digest(), null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(registry.admin("GET", "/v2/beta/manifests/" + image.digest(), null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(registry.send("GET", "/v2/beta/manifests/" + image.digest(), token, null)
                        .statusCode())
                .isEqualTo(401);
    }

    @Test
    void unknownProjectIsNameUnknownForTheAdmin() throws Exception {
        HttpResponse<byte[]> r = registry.admin("GET", "/v2/gamma/img/tags/list", null);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(error(r).get("code").asText()).isEqualTo("NAME_UNKNOWN");
        HttpResponse<byte[]> invalid = registry.admin("GET", "/v2/Alpha/IMG/tags/list", null);
        assertThat(invalid.statusCode()).isEqualTo(400);
        assertThat(error(invalid).get("code").asText()).isEqualTo("NAME_INVALID");
    }

    // ---- blobs and uploads ------------------------------------------------------------------

    @Test
    void blobsServeRangesAndHeads() throws Exception {
        byte[] content = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
        Digest digest = Digest.sha256(content);
        pushBlob("alpha/img", content);

        HttpResponse<byte[]> head = registry.admin("HEAD", "/v2/alpha/img/blobs/" + digest, null);
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValueAsLong("Content-Length")).hasValue(16);
        assertThat(head.headers().firstValue("Docker-Content-Digest")).hasValue(digest.toString());

        HttpResponse<byte[]> full = registry.admin("GET", "/v2/alpha/img/blobs/" + digest, null);
        assertThat(full.body()).isEqualTo(content);

        HttpResponse<byte[]> part = registry.admin("GET", "/v2/alpha/img/blobs/" + digest, null, "Range", "bytes=2-5");
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(new String(part.body())).isEqualTo("2345");
        assertThat(part.headers().firstValue("Content-Range")).hasValue("bytes 2-5/16");

        HttpResponse<byte[]> open = registry.admin("GET", "/v2/alpha/img/blobs/" + digest, null, "Range", "bytes=10-");
        assertThat(new String(open.body())).isEqualTo("abcdef");
        HttpResponse<byte[]> suffix = registry.admin("GET", "/v2/alpha/img/blobs/" + digest, null, "Range", "bytes=-3");
        assertThat(new String(suffix.body())).isEqualTo("def");

        HttpResponse<byte[]> beyond =
                registry.admin("GET", "/v2/alpha/img/blobs/" + digest, null, "Range", "bytes=16-20");
        assertThat(beyond.statusCode()).isEqualTo(416);
        assertThat(beyond.headers().firstValue("Content-Range")).hasValue("bytes */16");

        // Another project holding nothing of this content sees nothing, even for the admin.
        HttpResponse<byte[]> elsewhere = registry.admin("GET", "/v2/beta/img/blobs/" + digest, null);
        assertThat(elsewhere.statusCode()).isEqualTo(404);
        assertThat(error(elsewhere).get("code").asText()).isEqualTo("BLOB_UNKNOWN");
        assertThat(registry.admin("GET", "/v2/alpha/img/blobs/sha256:nothex", null)
                        .statusCode())
                .isEqualTo(400);
    }

    @Test
    void chunkedUploadWithWrongDigestIsRefusedAndLeavesNothing() throws Exception {
        byte[] first = "first chunk|".getBytes(StandardCharsets.UTF_8);
        byte[] second = "second chunk".getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> started = registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null);
        assertThat(started.statusCode()).isEqualTo(202);
        String location = started.headers().firstValue("Location").orElseThrow();
        assertThat(location).startsWith("/v2/alpha/img/blobs/uploads/");

        HttpResponse<byte[]> patch1 = registry.admin(
                "PATCH",
                location,
                first,
                "Content-Range",
                "0-" + (first.length - 1),
                "Content-Type",
                "application/octet-stream");
        assertThat(patch1.statusCode()).isEqualTo(202);
        assertThat(patch1.headers().firstValue("Range")).hasValue("0-" + (first.length - 1));

        // A chunk that does not continue where the upload stands is refused with the current range.
        HttpResponse<byte[]> gap =
                registry.admin("PATCH", location, second, "Content-Range", "100-" + (100 + second.length - 1));
        assertThat(gap.statusCode()).isEqualTo(416);
        assertThat(registry.admin("GET", location, null).headers().firstValue("Range"))
                .hasValue("0-" + (first.length - 1));

        // A Content-Range that disagrees with the body's length is refused before anything is written.
        HttpResponse<byte[]> lying =
                registry.admin("PATCH", location, second, "Content-Range", first.length + "-" + (first.length + 99));
        assertThat(lying.statusCode()).isEqualTo(416);
        assertThat(registry.admin("GET", location, null).headers().firstValue("Range"))
                .hasValue("0-" + (first.length - 1));

        HttpResponse<byte[]> patch2 = registry.admin(
                "PATCH", location, second, "Content-Range", first.length + "-" + (first.length + second.length - 1));
        assertThat(patch2.statusCode()).isEqualTo(202);
        HttpResponse<byte[]> status = registry.admin("GET", location, null);
        assertThat(status.statusCode()).isEqualTo(204);
        assertThat(status.headers().firstValue("Range")).hasValue("0-" + (first.length + second.length - 1));
        assertThat(registry.module.registry().openUploads()).isEqualTo(1);

        Digest wrong = Digest.sha256("something else".getBytes(StandardCharsets.UTF_8));
        HttpResponse<byte[]> put = registry.admin("PUT", location + "?digest=" + wrong, null);
        assertThat(put.statusCode()).isEqualTo(400);
        assertThat(error(put).get("code").asText()).isEqualTo("DIGEST_INVALID");

        // Nothing left behind: no session, no temporary data, no blob under either digest.
        assertThat(registry.module.registry().openUploads()).isZero();
        try (Stream<Path> uploads = Files.list(registry.dataDir.resolve("storage/_uploads"))) {
            assertThat(uploads).isEmpty();
        }
        assertThat(storedBlobFiles()).isZero();
        byte[] whole = (new String(first) + new String(second)).getBytes(StandardCharsets.UTF_8);
        assertThat(registry.admin("HEAD", "/v2/alpha/img/blobs/" + Digest.sha256(whole), null)
                        .statusCode())
                .isEqualTo(404);
        assertThat(registry.admin("HEAD", "/v2/alpha/img/blobs/" + wrong, null).statusCode())
                .isEqualTo(404);
        HttpResponse<byte[]> gone = registry.admin("PATCH", location, second);
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(error(gone).get("code").asText()).isEqualTo("BLOB_UPLOAD_UNKNOWN");
    }

    @Test
    void chunkedUploadWithTheRightDigestStoresTheBlob() throws Exception {
        byte[] first = "abc".getBytes(StandardCharsets.UTF_8);
        byte[] last = "def".getBytes(StandardCharsets.UTF_8);
        String location = registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        assertThat(registry.admin("PATCH", location, first).statusCode()).isEqualTo(202);
        Digest digest = Digest.sha256("abcdef".getBytes(StandardCharsets.UTF_8));
        HttpResponse<byte[]> put = registry.admin("PUT", location + "?digest=" + digest, last);
        assertThat(put.statusCode()).isEqualTo(201);
        assertThat(put.headers().firstValue("Location")).hasValue("/v2/alpha/img/blobs/" + digest);
        assertThat(put.headers().firstValue("Docker-Content-Digest")).hasValue(digest.toString());
        assertThat(new String(registry.admin("GET", "/v2/alpha/img/blobs/" + digest, null)
                        .body()))
                .isEqualTo("abcdef");
        assertThat(registry.module.registry().openUploads()).isZero();
    }

    @Test
    void monolithicUploadWithWrongDigestStoresNothing() throws Exception {
        byte[] content = "payload".getBytes(StandardCharsets.UTF_8);
        Digest wrong = Digest.sha256("other".getBytes(StandardCharsets.UTF_8));
        HttpResponse<byte[]> r = registry.admin("POST", "/v2/alpha/img/blobs/uploads/?digest=" + wrong, content);
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(error(r).get("code").asText()).isEqualTo("DIGEST_INVALID");
        assertThat(storedBlobFiles()).isZero();
        assertThat(registry.admin("POST", "/v2/alpha/img/blobs/uploads/?digest=md5:abc", content)
                        .statusCode())
                .isEqualTo(400);
    }

    @Test
    void cancelledUploadsAreDiscarded() throws Exception {
        String location = registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        registry.admin("PATCH", location, "partial".getBytes(StandardCharsets.UTF_8));
        assertThat(registry.admin("DELETE", location, null).statusCode()).isEqualTo(204);
        assertThat(registry.admin("GET", location, null).statusCode()).isEqualTo(404);
        assertThat(registry.admin("DELETE", location, null).statusCode()).isEqualTo(404);
        try (Stream<Path> uploads = Files.list(registry.dataDir.resolve("storage/_uploads"))) {
            assertThat(uploads).isEmpty();
        }
        // An upload session belongs to its repository.
        String other = registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        String id = other.substring(other.lastIndexOf('/') + 1);
        assertThat(registry.admin("GET", "/v2/alpha/elsewhere/blobs/uploads/" + id, null)
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void idleUploadsAreDiscardedWhenTheNextOneStarts() throws Exception {
        String stale = registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        registry.admin("PATCH", stale, "abandoned".getBytes(StandardCharsets.UTF_8));
        registry.clock.advance(Registry.UPLOAD_IDLE_LIMIT.plusSeconds(1));
        registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null);
        assertThat(registry.admin("GET", stale, null).statusCode()).isEqualTo(404);
        assertThat(registry.module.registry().openUploads()).isEqualTo(1);
        try (Stream<Path> uploads = Files.list(registry.dataDir.resolve("storage/_uploads"))) {
            assertThat(uploads).hasSize(1);
        }
    }

    @Test
    void crossRepositoryMountWorksWithinAProjectOnly() throws Exception {
        byte[] content = "shared layer".getBytes(StandardCharsets.UTF_8);
        Digest digest = Digest.sha256(content);
        pushBlob("alpha/a", content);

        HttpResponse<byte[]> mounted =
                registry.admin("POST", "/v2/alpha/b/blobs/uploads/?mount=" + digest + "&from=alpha/a", null);
        assertThat(mounted.statusCode()).isEqualTo(201);
        assertThat(mounted.headers().firstValue("Location")).hasValue("/v2/alpha/b/blobs/" + digest);
        assertThat(registry.admin("GET", "/v2/alpha/b/blobs/" + digest, null).body())
                .isEqualTo(content);

        // From another project: no mount, a fresh upload session instead (as the spec says), nothing readable.
        HttpResponse<byte[]> refused =
                registry.admin("POST", "/v2/beta/x/blobs/uploads/?mount=" + digest + "&from=alpha/a", null);
        assertThat(refused.statusCode()).isEqualTo(202);
        assertThat(refused.headers().firstValue("Location").orElseThrow()).startsWith("/v2/beta/x/blobs/uploads/");
        assertThat(registry.admin("HEAD", "/v2/beta/x/blobs/" + digest, null).statusCode())
                .isEqualTo(404);

        // A blob the source does not hold is not mounted either.
        Digest absent = Digest.sha256("absent".getBytes(StandardCharsets.UTF_8));
        assertThat(registry.admin("POST", "/v2/alpha/c/blobs/uploads/?mount=" + absent + "&from=alpha/a", null)
                        .statusCode())
                .isEqualTo(202);
    }

    @Test
    void bodiesAreBoundedByTheConfiguredLimit() throws Exception {
        registry.close();
        registry = new RegistryFixture(tmp.resolve("small"), 1024);
        byte[] big = new byte[2000];
        HttpResponse<byte[]> whole =
                registry.admin("POST", "/v2/alpha/img/blobs/uploads/?digest=" + Digest.sha256(big), big);
        assertThat(whole.statusCode()).isEqualTo(413);
        assertThat(error(whole).get("code").asText()).isEqualTo("SIZE_INVALID");

        String location = registry.admin("POST", "/v2/alpha/img/blobs/uploads/", null)
                .headers()
                .firstValue("Location")
                .orElseThrow();
        assertThat(registry.admin("PATCH", location, new byte[800]).statusCode())
                .isEqualTo(202);
        HttpResponse<byte[]> over = registry.admin("PATCH", location, new byte[800]);
        assertThat(over.statusCode()).isEqualTo(413);
        assertThat(registry.admin("GET", location, null).statusCode()).isEqualTo(404);
        assertThat(registry.module.registry().openUploads()).isZero();
        try (Stream<Path> uploads = Files.list(registry.dataDir.resolve("storage/_uploads"))) {
            assertThat(uploads).isEmpty();
        }
        assertThat(storedBlobFiles()).isZero();
    }

    // ---- manifests --------------------------------------------------------------------------

    @Test
    void manifestsByTagAndDigest() throws Exception {
        TestImage image = new TestImage("manifest");
        pushImage("alpha/img", image, "v1");

        for (String ref : List.of("v1", image.digest().toString())) {
            HttpResponse<byte[]> get = registry.admin("GET", "/v2/alpha/img/manifests/" + ref, null);
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo(image.manifest);
            assertThat(get.headers().firstValue("Content-Type")).hasValue("application/vnd.oci.image.manifest.v1+json");
            assertThat(get.headers().firstValue("Docker-Content-Digest"))
                    .hasValue(image.digest().toString());
            HttpResponse<byte[]> head = registry.admin("HEAD", "/v2/alpha/img/manifests/" + ref, null);
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.headers().firstValueAsLong("Content-Length")).hasValue(image.manifest.length);
        }
        HttpResponse<byte[]> unknown = registry.admin("GET", "/v2/alpha/img/manifests/v2", null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(error(unknown).get("code").asText()).isEqualTo("MANIFEST_UNKNOWN");

        // By digest, the digest must match the content.
        HttpResponse<byte[]> mismatch = putManifest(
                "alpha/img",
                Digest.sha256(new byte[] {1}).toString(),
                image.manifest,
                "application/vnd.oci.image.manifest.v1+json");
        assertThat(mismatch.statusCode()).isEqualTo(400);
        assertThat(error(mismatch).get("code").asText()).isEqualTo("DIGEST_INVALID");

        // Deleting a tag keeps the manifest; deleting the digest removes it and its tags.
        HttpResponse<byte[]> put =
                putManifest("alpha/img", "v2", image.manifest, "application/vnd.oci.image.manifest.v1+json");
        assertThat(put.headers().firstValue("Location")).hasValue("/v2/alpha/img/manifests/" + image.digest());
        assertThat(registry.admin("DELETE", "/v2/alpha/img/manifests/v1", null).statusCode())
                .isEqualTo(202);
        assertThat(registry.admin("GET", "/v2/alpha/img/manifests/v1", null).statusCode())
                .isEqualTo(404);
        assertThat(registry.admin("GET", "/v2/alpha/img/manifests/" + image.digest(), null)
                        .statusCode())
                .isEqualTo(200);
        assertThat(registry.admin("DELETE", "/v2/alpha/img/manifests/" + image.digest(), null)
                        .statusCode())
                .isEqualTo(202);
        assertThat(registry.admin("GET", "/v2/alpha/img/manifests/v2", null).statusCode())
                .isEqualTo(404);
        assertThat(registry.admin("GET", "/v2/alpha/img/manifests/" + image.digest(), null)
                        .statusCode())
                .isEqualTo(404);
    }

    @Test
    void dockerSchema2AndIndexesAreAccepted() throws Exception {
        byte[] config = "{\"architecture\":\"arm64\",\"os\":\"linux\"}".getBytes(StandardCharsets.UTF_8);
        byte[] layer = TestImage.tar(java.util.Map.of("f", new byte[] {1, 2, 3}));
        pushBlob("alpha/multi", config);
        pushBlob("alpha/multi", layer);
        byte[] docker =
                ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\",\"config\":"
                                + TestImage.descriptor("application/vnd.docker.container.image.v1+json", config)
                                + ",\"layers\":["
                                + TestImage.descriptor("application/vnd.docker.image.rootfs.diff.tar", layer) + "]}")
                        .getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> put = putManifest(
                "alpha/multi",
                Digest.sha256(docker).toString(),
                docker,
                "application/vnd.docker.distribution.manifest.v2+json");
        assertThat(put.statusCode()).as(new String(put.body())).isEqualTo(201);
        assertThat(registry.admin("GET", "/v2/alpha/multi/manifests/" + Digest.sha256(docker), null)
                        .headers()
                        .firstValue("Content-Type"))
                .hasValue("application/vnd.docker.distribution.manifest.v2+json");

        byte[] list =
                ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.docker.distribution.manifest.list.v2+json\","
                                + "\"manifests\":[{\"mediaType\":\"application/vnd.docker.distribution.manifest.v2+json\",\"digest\":\""
                                + Digest.sha256(docker) + "\",\"size\":" + docker.length
                                + ",\"platform\":{\"architecture\":\"arm64\",\"os\":\"linux\"}}]}")
                        .getBytes(StandardCharsets.UTF_8);
        assertThat(putManifest(
                                "alpha/multi",
                                "latest",
                                list,
                                "application/vnd.docker.distribution.manifest.list.v2+json")
                        .statusCode())
                .isEqualTo(201);
        byte[] oci = new String(list, StandardCharsets.UTF_8)
                .replace(
                        "application/vnd.docker.distribution.manifest.list.v2+json",
                        "application/vnd.oci.image.index.v1+json")
                .getBytes(StandardCharsets.UTF_8);
        assertThat(putManifest("alpha/multi", "oci", oci, "application/vnd.oci.image.index.v1+json")
                        .statusCode())
                .isEqualTo(201);
        assertThat(registry.admin("GET", "/v2/alpha/multi/manifests/oci", null)
                        .headers()
                        .firstValue("Content-Type"))
                .hasValue("application/vnd.oci.image.index.v1+json");

        // A Content-Type that contradicts the body is refused.
        HttpResponse<byte[]> contradiction =
                putManifest("alpha/multi", "bad", docker, "application/vnd.oci.image.manifest.v1+json");
        assertThat(contradiction.statusCode()).isEqualTo(400);
        assertThat(error(contradiction).get("code").asText()).isEqualTo("MANIFEST_INVALID");
        HttpResponse<byte[]> garbage = putManifest(
                "alpha/multi",
                "bad",
                "not json".getBytes(StandardCharsets.UTF_8),
                "application/vnd.oci.image.manifest.v1+json");
        assertThat(error(garbage).get("code").asText()).isEqualTo("MANIFEST_INVALID");
        HttpResponse<byte[]> huge = putManifest(
                "alpha/multi",
                "huge",
                new byte[(int) Registry.MAX_MANIFEST_BYTES + 1],
                "application/vnd.oci.image.manifest.v1+json");
        assertThat(huge.statusCode()).isEqualTo(413);
        assertThat(error(huge).get("code").asText()).isEqualTo("MANIFEST_INVALID");
        assertThat(registry.admin("GET", "/v2/alpha/multi/manifests/bad", null).statusCode())
                .isEqualTo(404);
    }

    @Test
    void manifestsReferencingMissingContentAreRefused() throws Exception {
        TestImage image = new TestImage("missing");
        pushBlob("alpha/img", image.config);
        pushBlob("alpha/img", image.layers.get(0)); // the second layer is never pushed
        HttpResponse<byte[]> r =
                putManifest("alpha/img", "v1", image.manifest, "application/vnd.oci.image.manifest.v1+json");
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode error = error(r);
        assertThat(error.get("code").asText()).isEqualTo("MANIFEST_BLOB_UNKNOWN");
        assertThat(error.get("detail").get("digest").asText())
                .isEqualTo(Digest.sha256(image.layers.get(1)).toString());
        assertThat(registry.admin("GET", "/v2/alpha/img/manifests/v1", null).statusCode())
                .isEqualTo(404);

        // Present in a sibling repository is not present here.
        pushBlob("alpha/sibling", image.layers.get(1));
        assertThat(error(putManifest("alpha/img", "v1", image.manifest, "application/vnd.oci.image.manifest.v1+json"))
                        .get("code")
                        .asText())
                .isEqualTo("MANIFEST_BLOB_UNKNOWN");

        byte[] index = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":["
                        + TestImage.descriptor("application/vnd.oci.image.manifest.v1+json", image.manifest) + "]}")
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> indexed =
                putManifest("alpha/img", "all", index, "application/vnd.oci.image.index.v1+json");
        assertThat(indexed.statusCode()).isEqualTo(400);
        assertThat(error(indexed).get("code").asText()).isEqualTo("MANIFEST_BLOB_UNKNOWN");

        // A size that lies about the blob is invalid.
        pushBlob("alpha/img", image.layers.get(1));
        byte[] lying = new String(image.manifest, StandardCharsets.UTF_8)
                .replace("\"size\":" + image.config.length, "\"size\":" + (image.config.length + 1))
                .getBytes(StandardCharsets.UTF_8);
        assertThat(error(putManifest("alpha/img", "v1", lying, "application/vnd.oci.image.manifest.v1+json"))
                        .get("code")
                        .asText())
                .isEqualTo("MANIFEST_INVALID");
        assertThat(putManifest("alpha/img", "v1", image.manifest, "application/vnd.oci.image.manifest.v1+json")
                        .statusCode())
                .isEqualTo(201);
    }

    // ---- tags and referrers -------------------------------------------------------------------

    @Test
    void tagsListPaginatesWithLinkHeaders() throws Exception {
        TestImage image = new TestImage("tags");
        pushImage("alpha/img", image, "a");
        for (String tag : List.of("e", "c", "b", "d")) {
            putManifest("alpha/img", tag, image.manifest, "application/vnd.oci.image.manifest.v1+json");
        }
        HttpResponse<byte[]> all = registry.admin("GET", "/v2/alpha/img/tags/list", null);
        JsonNode body = JSON.readTree(all.body());
        assertThat(body.get("name").asText()).isEqualTo("alpha/img");
        assertThat(body.get("tags").toString()).isEqualTo("[\"a\",\"b\",\"c\",\"d\",\"e\"]");
        assertThat(all.headers().firstValue("Link")).isEmpty();

        List<String> seen = new ArrayList<>();
        String next = "/v2/alpha/img/tags/list?n=2";
        int pages = 0;
        while (next != null) {
            HttpResponse<byte[]> page = registry.admin("GET", next, null);
            JSON.readTree(page.body()).get("tags").forEach(t -> seen.add(t.asText()));
            next = page.headers()
                    .firstValue("Link")
                    .map(l -> l.substring(1, l.indexOf('>')))
                    .orElse(null);
            pages++;
        }
        assertThat(seen).containsExactly("a", "b", "c", "d", "e");
        assertThat(pages).isEqualTo(3);
        assertThat(JSON.readTree(registry.admin("GET", "/v2/alpha/img/tags/list?last=c", null)
                                .body())
                        .get("tags")
                        .toString())
                .isEqualTo("[\"d\",\"e\"]");
        assertThat(registry.admin("GET", "/v2/alpha/img/tags/list?n=-1", null).statusCode())
                .isEqualTo(400);

        HttpResponse<byte[]> unknown = registry.admin("GET", "/v2/alpha/never/tags/list", null);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(error(unknown).get("code").asText()).isEqualTo("NAME_UNKNOWN");
    }

    @Test
    void referrersListsManifestsWithASubjectAndFiltersByArtifactType() throws Exception {
        TestImage image = new TestImage("subject");
        pushImage("alpha/img", image, "v1");
        byte[] empty = "{}".getBytes(StandardCharsets.UTF_8);
        pushBlob("alpha/img", empty);
        String subject = "{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"" + image.digest()
                + "\",\"size\":" + image.manifest.length + "}";
        byte[] signature = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                        + "\"artifactType\":\"application/vnd.example.signature\",\"config\":"
                        + TestImage.descriptor("application/vnd.oci.empty.v1+json", empty)
                        + ",\"layers\":[],\"subject\":" + subject
                        + ",\"annotations\":{\"org.example\":\"sig\"}}")
                .getBytes(StandardCharsets.UTF_8);
        byte[] sbom = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":"
                        + TestImage.descriptor("application/vnd.example.sbom", empty) + ",\"layers\":[],\"subject\":"
                        + subject + "}")
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<byte[]> put = putManifest(
                "alpha/img",
                Digest.sha256(signature).toString(),
                signature,
                "application/vnd.oci.image.manifest.v1+json");
        assertThat(put.statusCode()).as(new String(put.body())).isEqualTo(201);
        assertThat(put.headers().firstValue("OCI-Subject"))
                .hasValue(image.digest().toString());
        putManifest("alpha/img", Digest.sha256(sbom).toString(), sbom, "application/vnd.oci.image.manifest.v1+json");

        HttpResponse<byte[]> all = registry.admin("GET", "/v2/alpha/img/referrers/" + image.digest(), null);
        assertThat(all.statusCode()).isEqualTo(200);
        assertThat(all.headers().firstValue("Content-Type")).hasValue("application/vnd.oci.image.index.v1+json");
        JsonNode index = JSON.readTree(all.body());
        assertThat(index.get("manifests")).hasSize(2);
        List<String> types = new ArrayList<>();
        index.get("manifests").forEach(d -> types.add(d.get("artifactType").asText()));
        assertThat(types)
                .containsExactlyInAnyOrder("application/vnd.example.signature", "application/vnd.example.sbom");

        HttpResponse<byte[]> filtered = registry.admin(
                "GET",
                "/v2/alpha/img/referrers/" + image.digest() + "?artifactType=application/vnd.example.signature",
                null);
        assertThat(filtered.headers().firstValue("OCI-Filters-Applied")).hasValue("artifactType");
        JsonNode only = JSON.readTree(filtered.body()).get("manifests");
        assertThat(only).hasSize(1);
        assertThat(only.get(0).get("digest").asText())
                .isEqualTo(Digest.sha256(signature).toString());
        assertThat(only.get(0).get("size").asLong()).isEqualTo(signature.length);
        assertThat(only.get(0).get("annotations").get("org.example").asText()).isEqualTo("sig");

        // Deleting a referrer removes it from the list; an unknown subject lists nothing.
        registry.admin("DELETE", "/v2/alpha/img/manifests/" + Digest.sha256(signature), null);
        assertThat(JSON.readTree(registry.admin("GET", "/v2/alpha/img/referrers/" + image.digest(), null)
                                .body())
                        .get("manifests"))
                .hasSize(1);
        assertThat(JSON.readTree(registry.admin("GET", "/v2/alpha/img/referrers/" + Digest.sha256(empty), null)
                                .body())
                        .get("manifests"))
                .isEmpty();
        assertThat(registry.admin("GET", "/v2/alpha/img/referrers/nonsense", null)
                        .statusCode())
                .isEqualTo(400);
    }
}
