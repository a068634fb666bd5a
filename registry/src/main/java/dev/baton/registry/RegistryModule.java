package dev.baton.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.core.config.ServerConfig;
import dev.baton.registry.RepositoryAccess.Target;
import dev.baton.store.Store;
import dev.baton.store.blob.BlobStorage;
import dev.baton.store.blob.BlobStorageException;
import dev.baton.store.blob.Digest;
import dev.baton.store.token.RegistryTokens;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OCI registry under {@code /v2/} (distribution specification v1.1) and its token endpoint
 * {@code /v2/token}. Repository names are {@code <project>[/<path>]}; every request is
 * authenticated, resolved to a project and authorized before the {@link Registry} sees it.
 *
 * <p>Responses with blob content are written to the servlet response directly, past Javalin's
 * result handling, so that nothing compresses or buffers a layer (clients verify the bytes and
 * the Content-Length against the digest).
 */
public final class RegistryModule implements RouteModule {
    private static final Logger log = LoggerFactory.getLogger(RegistryModule.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern UUID_SHAPE =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");
    private static final Pattern CONTENT_RANGE = Pattern.compile("(?:bytes[ =])?(\\d+)-(\\d+)(?:/.*)?");
    private static final int MAX_TAGS_PAGE = 10_000;
    public static final String SERVICE = "baton";

    private final Registry registry;
    private final RegistryAuth auth;
    private final TokenEndpoint tokenEndpoint;
    private final RepositoryAccess access;
    private final JobPulls jobPulls;

    /**
     * @param credentials  what the admin token or a user's API token grants (the passwords the token endpoint accepts)
     * @param publicUrl    base URL for the token realm; null derives it from each request's Host
     */
    public RegistryModule(
            Registry registry,
            RegistryTokens tokens,
            ProjectLookup projects,
            Credentials credentials,
            String publicUrl,
            Clock clock,
            Store store) {
        this.registry = registry;
        this.jobPulls = new JobPulls(registry, store, clock);
        this.auth = new RegistryAuth(tokens, credentials, clock);
        this.tokenEndpoint = new TokenEndpoint(auth, tokens, projects, clock);
        this.access = new RepositoryAccess(auth, projects, publicUrl == null ? null : publicUrl.replaceAll("/+$", ""));
    }

    /**
     * The registry as a server runs it: blobs and metadata in the server's blob storage, upload
     * sessions in its store (so any node continues them), the body bound from the config.
     */
    public static RegistryModule open(
            ServerConfig config,
            BlobStorage storage,
            Store store,
            Credentials credentials,
            ProjectLookup projects,
            RegistryTokens tokens,
            Clock clock) {
        Registry registry = new Registry(
                storage.blobs(),
                new ObjectRepositories(storage.objects()),
                store,
                config.registryMaxBodyBytes(),
                clock);
        return new RegistryModule(registry, tokens, projects, credentials, config.publicUrl(), clock, store);
    }

    public Registry registry() {
        return registry;
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        Handler handler = this::handle;
        for (String path : List.of("/v2", "/v2/<path>")) {
            config.routes.get(path, handler);
            config.routes.head(path, handler);
            config.routes.post(path, handler);
            config.routes.put(path, handler);
            config.routes.patch(path, handler);
            config.routes.delete(path, handler);
        }
    }

    private void handle(Context ctx) {
        ctx.header("Docker-Distribution-API-Version", "registry/2.0");
        String rest = ctx.path()
                .substring(Math.min(ctx.path().length(), "/v2".length()))
                .replaceFirst("^/", "");
        String method = ctx.req().getMethod();
        try {
            if (rest.equals("token")) {
                if (!method.equals("GET") && !method.equals("POST")) throw unsupported();
                tokenEndpoint.handle(ctx);
                return;
            }
            RegistryPath path = RegistryPath.parse(rest)
                    .orElseThrow(() ->
                            new RegistryException(ErrorCode.NAME_UNKNOWN, 404, "no such registry endpoint", Map.of()));
            switch (path) {
                case RegistryPath.Base b -> base(ctx, method);
                case RegistryPath.Blob b -> blob(ctx, method, b);
                case RegistryPath.Uploads u -> uploads(ctx, method, u);
                case RegistryPath.Upload u -> upload(ctx, method, u);
                case RegistryPath.Manifest m -> manifest(ctx, method, m);
                case RegistryPath.Tags t -> tags(ctx, method, t);
                case RegistryPath.Referrers r -> referrers(ctx, method, r);
            }
        } catch (RegistryException e) {
            writeError(ctx, e);
        } catch (BlobStorageException e) {
            log.error("registry request {} {}: blob storage failed", method, ctx.path(), e);
            if (!ctx.res().isCommitted()) {
                writeError(
                        ctx,
                        new RegistryException(
                                ErrorCode.UNAVAILABLE, "the blob storage is unavailable; try again later"));
            }
        } catch (Exception e) {
            log.error("registry request {} {} failed", method, ctx.path(), e);
            if (!ctx.res().isCommitted()) {
                writeError(
                        ctx,
                        new RegistryException(
                                ErrorCode.UNKNOWN, "the registry failed to handle this request; see the server log"));
            }
        }
    }

    // ---- endpoints ------------------------------------------------------------------------

    private void base(Context ctx, String method) {
        if (!method.equals("GET") && !method.equals("HEAD")) throw unsupported();
        if (auth.authenticate(ctx.header("Authorization")).isEmpty()) {
            throw access.challenge(ctx, null, null, false, "authentication required");
        }
        ctx.status(200).contentType("application/json").result("{}");
    }

    private void blob(Context ctx, String method, RegistryPath.Blob p) throws IOException {
        boolean delete = method.equals("DELETE");
        if (!delete && !method.equals("GET") && !method.equals("HEAD")) throw unsupported();
        Target target = access.authorize(ctx, p.name(), delete ? "delete" : "pull");
        Digest digest = digest(p.digest());
        if (!delete) jobPulls.blob(target.grant(), target.key(), digest);
        if (delete) {
            registry.deleteBlob(target.key(), digest);
            ctx.status(202);
            return;
        }
        long size = registry.blobSize(target.key(), digest);
        long start = 0;
        long end = size - 1;
        int status = 200;
        String range = ctx.header("Range");
        Matcher m = range == null ? null : RANGE.matcher(range.trim());
        if (m != null && m.matches() && !(m.group(1).isEmpty() && m.group(2).isEmpty())) {
            if (m.group(1).isEmpty()) { // suffix range: the last N bytes
                start = Math.max(0, size - Long.parseLong(m.group(2)));
            } else {
                start = Long.parseLong(m.group(1));
                if (!m.group(2).isEmpty()) end = Math.min(end, Long.parseLong(m.group(2)));
            }
            if (start >= size || start > end) {
                ctx.header("Content-Range", "bytes */" + size);
                throw new RegistryException(
                        ErrorCode.BLOB_UNKNOWN,
                        416,
                        "range " + range + " is not satisfiable for " + size + " bytes",
                        Map.of("size", size));
            }
            status = 206;
            ctx.header("Content-Range", "bytes " + start + "-" + end + "/" + size);
        }
        long length = Math.max(0, end - start + 1);
        HttpServletResponse res = ctx.res();
        res.setStatus(status);
        res.setHeader("Docker-Content-Digest", digest.toString());
        res.setHeader("Accept-Ranges", "bytes");
        res.setHeader("ETag", "\"" + digest + "\"");
        res.setContentType("application/octet-stream");
        res.setContentLengthLong(length);
        if (method.equals("HEAD") || length == 0) return;
        try (InputStream in = registry.openBlob(digest, start);
                OutputStream out = res.getOutputStream()) {
            byte[] buffer = new byte[64 * 1024];
            long remaining = length;
            while (remaining > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
                if (n < 0) throw new IOException("blob " + digest + " ended early");
                out.write(buffer, 0, n);
                remaining -= n;
            }
        }
    }

    private void uploads(Context ctx, String method, RegistryPath.Uploads p) throws IOException {
        if (!method.equals("POST")) throw unsupported();
        Target target = access.authorize(ctx, p.name(), "push");
        String digestParam = ctx.queryParam("digest");
        String mount = ctx.queryParam("mount");
        String from = ctx.queryParam("from");
        if (mount != null && from != null && digestParam == null) {
            Digest digest = digest(mount);
            Optional<RepositoryKey> source = access.mountSource(ctx, target, from);
            if (source.isPresent() && registry.mount(target.key(), source.get(), digest)) {
                blobCreated(ctx, target, digest);
                return;
            }
            // Not mountable (other project, not readable, not there): the spec says fall back to an upload.
        }
        if (digestParam != null) {
            Digest digest = digest(digestParam);
            checkDeclaredLength(ctx);
            registry.putBlob(target.key(), digest, body(ctx));
            blobCreated(ctx, target, digest);
            return;
        }
        UploadStatus status = registry.startUpload(target.key());
        uploadAccepted(ctx, target, status, 202);
    }

    private void upload(Context ctx, String method, RegistryPath.Upload p) throws IOException {
        String action = method.equals("GET") ? "pull" : "push";
        Target target = access.authorize(ctx, p.name(), action);
        String id = p.id();
        if (!UUID_SHAPE.matcher(id).matches()) {
            throw new RegistryException(ErrorCode.BLOB_UPLOAD_UNKNOWN, "upload " + id + " is unknown");
        }
        switch (method) {
            case "GET" -> uploadAccepted(ctx, target, registry.uploadStatus(target.key(), id), 204);
            case "DELETE" -> {
                registry.cancelUpload(target.key(), id);
                ctx.status(204);
            }
            case "PATCH" -> {
                Chunk chunk = chunk(ctx, id, target);
                uploadAccepted(
                        ctx, target, registry.appendChunk(target.key(), id, chunk.start, chunk.length, body(ctx)), 202);
            }
            case "PUT" -> {
                String digestParam = ctx.queryParam("digest");
                if (digestParam == null) throw new RegistryException(ErrorCode.DIGEST_INVALID, "PUT needs ?digest=");
                Digest digest = digest(digestParam);
                Chunk chunk = chunk(ctx, id, target);
                if (chunk.start != null || chunk.length == null || chunk.length > 0) {
                    registry.appendChunk(target.key(), id, chunk.start, chunk.length, body(ctx));
                }
                registry.finishUpload(target.key(), id, digest, 0L, InputStream.nullInputStream());
                blobCreated(ctx, target, digest);
            }
            default -> throw unsupported();
        }
    }

    private void manifest(Context ctx, String method, RegistryPath.Manifest p) throws IOException {
        switch (method) {
            case "GET", "HEAD" -> {
                Target target = access.authorize(ctx, p.name(), "pull");
                jobPulls.manifest(target.grant(), target.key(), p.reference(), ctx.ip());
                StoredManifest manifest = registry.getManifest(target.key(), p.reference());
                HttpServletResponse res = ctx.res();
                res.setStatus(200);
                res.setContentType(manifest.mediaType());
                res.setHeader("Docker-Content-Digest", manifest.digest().toString());
                res.setHeader("ETag", "\"" + manifest.digest() + "\"");
                res.setContentLengthLong(manifest.content().length);
                if (method.equals("GET")) {
                    try (OutputStream out = res.getOutputStream()) {
                        out.write(manifest.content());
                    }
                }
            }
            case "PUT" -> {
                Target target = access.authorize(ctx, p.name(), "push");
                // Read (at most one byte past the bound) before refusing, so that a client still
                // sending is not cut off mid-request and does see the 413.
                byte[] body = body(ctx).readNBytes((int) Registry.MAX_MANIFEST_BYTES + 1);
                if (body.length > Registry.MAX_MANIFEST_BYTES) throw manifestTooLarge();
                Registry.PutManifestResult result =
                        registry.putManifest(target.key(), p.reference(), body, ctx.header("Content-Type"));
                ctx.header("Location", "/v2/" + target.name().text() + "/manifests/" + result.digest());
                ctx.header("Docker-Content-Digest", result.digest().toString());
                result.subject().ifPresent(subject -> ctx.header("OCI-Subject", subject.toString()));
                ctx.status(201);
            }
            case "DELETE" -> {
                Target target = access.authorize(ctx, p.name(), "delete");
                registry.deleteManifest(target.key(), p.reference());
                ctx.status(202);
            }
            default -> throw unsupported();
        }
    }

    private void tags(Context ctx, String method, RegistryPath.Tags p) throws IOException {
        if (!method.equals("GET")) throw unsupported();
        Target target = access.authorize(ctx, p.name(), "pull");
        Integer n = null;
        String nParam = ctx.queryParam("n");
        if (nParam != null) {
            try {
                n = Math.min(Integer.parseInt(nParam), MAX_TAGS_PAGE);
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 0)
                throw new RegistryException(ErrorCode.PAGINATION_NUMBER_INVALID, "n must be a non-negative integer");
        }
        String last = ctx.queryParam("last");
        TagsPage page = registry.tags(target.key(), n, last);
        if (page.more()) {
            String lastTag = page.tags().isEmpty()
                    ? (last == null ? "" : last)
                    : page.tags().getLast();
            ctx.header(
                    "Link",
                    "</v2/" + target.name().text() + "/tags/list?n=" + n + "&last=" + lastTag + ">; rel=\"next\"");
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", target.name().text());
        body.put("tags", page.tags());
        ctx.status(200).contentType("application/json").result(JSON.writeValueAsBytes(body));
    }

    private void referrers(Context ctx, String method, RegistryPath.Referrers p) throws IOException {
        if (!method.equals("GET")) throw unsupported();
        Target target = access.authorize(ctx, p.name(), "pull");
        Digest subject = digest(p.digest());
        String artifactType = ctx.queryParam("artifactType");
        List<Descriptor> referrers = registry.referrers(target.key(), subject, artifactType);
        if (artifactType != null) ctx.header("OCI-Filters-Applied", "artifactType");
        Map<String, Object> index = new LinkedHashMap<>();
        index.put("schemaVersion", 2);
        index.put("mediaType", MediaTypes.OCI_INDEX);
        index.put("manifests", referrers);
        ctx.status(200).contentType(MediaTypes.OCI_INDEX).result(JSON.writeValueAsBytes(index));
    }

    // ---- request and response helpers -------------------------------------------------------

    /** A chunk's announced position and length, from Content-Range and Content-Length. */
    private record Chunk(Long start, Long length) {}

    private Chunk chunk(Context ctx, String id, Target target) {
        long contentLength = ctx.req().getContentLengthLong();
        Long length = contentLength >= 0 ? contentLength : null;
        String contentRange = ctx.header("Content-Range");
        if (contentRange == null) return new Chunk(null, length);
        Matcher m = CONTENT_RANGE.matcher(contentRange.trim());
        if (!m.matches()) {
            throw new RegistryException(
                    ErrorCode.BLOB_UPLOAD_INVALID,
                    416,
                    "invalid Content-Range " + contentRange,
                    Map.of("range", registry.uploadStatus(target.key(), id).range()));
        }
        long start = Long.parseLong(m.group(1));
        long end = Long.parseLong(m.group(2));
        if (end < start || (length != null && length != end - start + 1)) {
            throw new RegistryException(
                    ErrorCode.BLOB_UPLOAD_INVALID,
                    416,
                    "Content-Range " + contentRange + " does not match Content-Length " + length,
                    Map.of("range", registry.uploadStatus(target.key(), id).range()));
        }
        return new Chunk(start, end - start + 1);
    }

    private void checkDeclaredLength(Context ctx) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > registry.maxBlobBytes()) {
            throw new RegistryException(
                    ErrorCode.SIZE_INVALID,
                    413,
                    "blob of " + declared + " bytes exceeds the registry's limit of " + registry.maxBlobBytes()
                            + " bytes",
                    Map.of("limit", registry.maxBlobBytes()));
        }
    }

    private static InputStream body(Context ctx) throws IOException {
        return ctx.req().getInputStream();
    }

    private static Digest digest(String text) {
        return Digest.parse(text)
                .orElseThrow(() -> new RegistryException(
                        ErrorCode.DIGEST_INVALID,
                        "invalid digest " + text + " (expected sha256:<64 hex> or sha512:<128 hex>)",
                        Map.of("digest", text)));
    }

    private static void blobCreated(Context ctx, Target target, Digest digest) {
        ctx.header("Location", "/v2/" + target.name().text() + "/blobs/" + digest);
        ctx.header("Docker-Content-Digest", digest.toString());
        ctx.status(201);
    }

    private static void uploadAccepted(Context ctx, Target target, UploadStatus status, int code) {
        ctx.header("Location", "/v2/" + target.name().text() + "/blobs/uploads/" + status.id());
        ctx.header("Docker-Upload-UUID", status.id());
        ctx.header("Range", status.range());
        ctx.status(code);
    }

    private static RegistryException unsupported() {
        return new RegistryException(ErrorCode.UNSUPPORTED, "method not supported on this endpoint");
    }

    private static RegistryException manifestTooLarge() {
        return new RegistryException(
                ErrorCode.MANIFEST_INVALID,
                413,
                "manifest exceeds " + Registry.MAX_MANIFEST_BYTES + " bytes",
                Map.of("limit", Registry.MAX_MANIFEST_BYTES));
    }

    static void writeError(Context ctx, RegistryException e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", e.code().name());
        error.put("message", e.getMessage());
        error.put("detail", e.detail());
        try {
            ctx.status(e.status())
                    .contentType("application/json")
                    .result(JSON.writeValueAsBytes(Map.of("errors", List.of(error))));
        } catch (IOException io) {
            throw new java.io.UncheckedIOException(io);
        }
    }
}
