package dev.baton.registry;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.store.RegistryUpload;
import dev.baton.store.Store;
import dev.baton.store.blob.BlobStore;
import dev.baton.store.blob.BlobTooLargeException;
import dev.baton.store.blob.ChunkedUpload;
import dev.baton.store.blob.CommitOutcome;
import dev.baton.store.blob.Digest;
import dev.baton.store.blob.RunningHash;
import dev.baton.store.blob.StagedChunk;
import dev.baton.store.blob.StagedUpload;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The registry's operations on already authorized, resolved repositories, independent of HTTP.
 * Upload sessions are rows in the store and their data chunks in the blob store's staging area,
 * so any server node can continue (or finish) an upload another node started, and sessions
 * survive a restart. Every chunk is a compare-and-set on the session's size: of two requests
 * racing on one session, one appends and the other is refused. A session idle for
 * {@link #UPLOAD_IDLE_LIMIT} is discarded when the next one starts (on any node).
 */
public final class Registry {
    public static final long MAX_MANIFEST_BYTES = 4L * 1024 * 1024;
    public static final Duration UPLOAD_IDLE_LIMIT = Duration.ofHours(1);
    /** How often a node looks for staging data no session owns (left by a crash). */
    static final Duration ORPHAN_SWEEP_INTERVAL = Duration.ofMinutes(10);

    private static final int IDLE_BATCH = 100;
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<StagedChunk>> CHUNKS = new TypeReference<>() {};

    private final BlobStore blobs;
    private final Repositories repositories;
    private final Store sessions;
    private final long maxBlobBytes;
    private final Clock clock;
    /**
     * This node's running hashes of the sessions whose every byte it received: saves reading an
     * upload again to verify it. Only an optimization: a session continued elsewhere has no entry
     * (or a stale one, ignored because its size differs) and is hashed from its chunks.
     */
    private final Map<String, CachedHash> hashes = new ConcurrentHashMap<>();

    private volatile Instant nextOrphanSweep = Instant.MIN;

    /**
     * @param sessions where upload sessions are kept (the server's store); null for a registry that
     *                 only stores whole blobs and manifests (tools filling a storage directory)
     */
    public Registry(BlobStore blobs, Repositories repositories, Store sessions, long maxBlobBytes, Clock clock) {
        this.blobs = blobs;
        this.repositories = repositories;
        this.sessions = sessions;
        this.maxBlobBytes = maxBlobBytes;
        this.clock = clock;
    }

    public long maxBlobBytes() {
        return maxBlobBytes;
    }

    // ---- blobs ----------------------------------------------------------------------------

    /** Size of a blob this repository may read; BLOB_UNKNOWN otherwise (also for other projects' blobs). */
    public long blobSize(RepositoryKey repo, Digest digest) throws IOException {
        boolean readable = repositories.hasBlob(repo, digest)
                || repositories.manifest(repo, digest).isPresent()
                || (repo.path().isEmpty() && repositories.projectHasContent(repo.project(), digest));
        if (!readable) throw blobUnknown(digest);
        return blobs.size(digest).orElseThrow(() -> blobUnknown(digest));
    }

    public InputStream openBlob(Digest digest, long offset) throws IOException {
        return blobs.open(digest, offset);
    }

    public void deleteBlob(RepositoryKey repo, Digest digest) throws IOException {
        if (!repositories.unlinkBlob(repo, digest)) throw blobUnknown(digest);
    }

    // ---- uploads --------------------------------------------------------------------------

    public UploadStatus startUpload(RepositoryKey repo) throws IOException {
        discardIdleUploads();
        String id = UUID.randomUUID().toString();
        Instant now = clock.instant();
        // The row first: staging data without a row is what the orphan sweep removes.
        sessions()
                .uploads()
                .createRegistryUpload(
                        new RegistryUpload(id, repo.project().toString(), repo.path(), 0, "[]", now, now));
        blobs.createStaging(id);
        hashes.put(id, new CachedHash(new RunningHash(), now));
        return new UploadStatus(id, 0);
    }

    /** A whole blob in one request (POST with {@code digest}). */
    public void putBlob(RepositoryKey repo, Digest digest, InputStream body) throws IOException {
        CommitOutcome outcome;
        try {
            outcome = blobs.put(body, digest, maxBlobBytes);
        } catch (BlobTooLargeException e) {
            throw tooLarge();
        }
        if (outcome == CommitOutcome.DIGEST_MISMATCH) throw digestMismatch(digest);
        repositories.linkBlob(repo, digest);
    }

    /** Links a blob of {@code from} into {@code repo} (same project); false when {@code from} lacks it. */
    public boolean mount(RepositoryKey repo, RepositoryKey from, Digest digest) throws IOException {
        if (!repo.project().equals(from.project())) return false;
        if (!repositories.hasBlob(from, digest) || blobs.size(digest).isEmpty()) return false;
        repositories.linkBlob(repo, digest);
        return true;
    }

    public UploadStatus uploadStatus(RepositoryKey repo, String id) {
        return new UploadStatus(id, session(repo, id).size());
    }

    /**
     * Appends a chunk. {@code rangeStart} (from Content-Range) must equal the bytes received so far;
     * {@code expectedLength} (from Content-Length or the range) is checked before anything is written.
     */
    public UploadStatus appendChunk(
            RepositoryKey repo, String id, Long rangeStart, Long expectedLength, InputStream body) throws IOException {
        RegistryUpload session = session(repo, id);
        if (rangeStart != null && rangeStart != session.size()) throw rangeInvalid(id, rangeStart, session.size());
        ChunkedUpload upload = append(session, expectedLength, body);
        return new UploadStatus(id, upload.size());
    }

    /** Appends an optional last chunk, verifies the digest and links the blob; a mismatch discards the upload. */
    public void finishUpload(RepositoryKey repo, String id, Digest digest, Long expectedLength, InputStream body)
            throws IOException {
        RegistryUpload session = session(repo, id);
        ChunkedUpload upload =
                expectedLength == null || expectedLength > 0 ? append(session, expectedLength, body) : resume(session);
        // Ending the session is the claim on its data: of two requests finishing it, one wins.
        if (!sessions().uploads().deleteRegistryUpload(id, upload.size())) throw uploadUnknown(id);
        hashes.remove(id);
        CommitOutcome outcome = upload.commit(digest);
        if (outcome == CommitOutcome.DIGEST_MISMATCH) throw digestMismatch(digest);
        repositories.linkBlob(repo, digest);
    }

    public void cancelUpload(RepositoryKey repo, String id) throws IOException {
        session(repo, id);
        if (!sessions().uploads().deleteRegistryUpload(id, -1)) throw uploadUnknown(id);
        hashes.remove(id);
        blobs.discard(id);
    }

    /** Upload sessions open, on all nodes (observability and tests). */
    public int openUploads() {
        return (int) sessions().uploads().countRegistryUploads();
    }

    private ChunkedUpload append(RegistryUpload session, Long expectedLength, InputStream body) throws IOException {
        String id = session.id();
        long before = session.size();
        if (expectedLength != null && before + expectedLength > maxBlobBytes) {
            end(id);
            throw tooLarge();
        }
        ChunkedUpload upload = resume(session);
        ChunkedUpload.Written written;
        try {
            written = upload.writeChunk(body, maxBlobBytes);
        } catch (BlobTooLargeException e) {
            sessions().uploads().deleteRegistryUpload(id, -1); // the upload's data is already discarded
            hashes.remove(id);
            throw tooLarge();
        } catch (IOException | RuntimeException e) {
            sessions().uploads().deleteRegistryUpload(id, -1);
            hashes.remove(id);
            throw e;
        }
        long received = written.chunk() == null ? 0 : written.chunk().size();
        if (expectedLength != null && received != expectedLength) {
            end(id);
            throw new RegistryException(
                    ErrorCode.SIZE_INVALID,
                    "received " + received + " bytes where " + expectedLength + " were announced; upload discarded");
        }
        if (written.chunk() == null) return upload; // nothing to record
        upload.record(written);
        Instant now = clock.instant();
        if (!sessions()
                .uploads()
                .advanceRegistryUpload(id, before, upload.size(), JSON.writeValueAsString(upload.chunks()), now)) {
            // Another request (on this node or another) appended, finished or cancelled meanwhile.
            blobs.deleteChunk(id, written.chunk());
            Optional<RegistryUpload> current = sessions().uploads().findRegistryUpload(id);
            if (current.isEmpty()) throw uploadUnknown(id);
            throw rangeInvalid(id, before, current.get().size());
        }
        if (upload.hash() != null) hashes.put(id, new CachedHash(upload.hash(), now));
        else hashes.remove(id);
        return upload;
    }

    /** Ends a session whatever it holds and discards its data. */
    private void end(String id) throws IOException {
        sessions().uploads().deleteRegistryUpload(id, -1);
        hashes.remove(id);
        blobs.discard(id);
    }

    private ChunkedUpload resume(RegistryUpload session) throws IOException {
        CachedHash cached = hashes.get(session.id());
        return ChunkedUpload.resume(
                blobs, session.id(), JSON.readValue(session.chunks(), CHUNKS), cached == null ? null : cached.hash());
    }

    /** The session, if it belongs to this repository. */
    private RegistryUpload session(RepositoryKey repo, String id) {
        return sessions()
                .uploads()
                .findRegistryUpload(id)
                .filter(s -> s.projectUuid().equals(repo.project().toString())
                        && s.repository().equals(repo.path()))
                .orElseThrow(() -> uploadUnknown(id));
    }

    private Store sessions() {
        if (sessions == null) throw new IllegalStateException("this registry keeps no upload sessions");
        return sessions;
    }

    /**
     * Discards sessions idle past the limit, and now and then staging data that no session owns
     * and nobody wrote for as long (a node that died between writing a chunk and recording it, or
     * while storing a whole blob).
     */
    private void discardIdleUploads() throws IOException {
        Instant now = clock.instant();
        Instant cutoff = now.minus(UPLOAD_IDLE_LIMIT);
        for (RegistryUpload idle : sessions().uploads().idleRegistryUploads(cutoff, IDLE_BATCH)) {
            // By size: a session that just received a chunk is no longer idle, and stays.
            if (sessions().uploads().deleteRegistryUpload(idle.id(), idle.size())) blobs.discard(idle.id());
            hashes.remove(idle.id());
        }
        hashes.values().removeIf(h -> h.touched().isBefore(cutoff));
        if (now.isBefore(nextOrphanSweep)) return;
        nextOrphanSweep = now.plus(ORPHAN_SWEEP_INTERVAL);
        for (StagedUpload staged : blobs.stagedUploads()) {
            if (staged.lastModified().isBefore(cutoff)
                    && sessions().uploads().findRegistryUpload(staged.id()).isEmpty()) {
                blobs.discard(staged.id());
            }
        }
    }

    private record CachedHash(RunningHash hash, Instant touched) {}

    // ---- manifests ------------------------------------------------------------------------

    public StoredManifest getManifest(RepositoryKey repo, String reference) throws IOException {
        Digest digest = resolve(repo, reference);
        Optional<String> own = repositories.manifest(repo, digest);
        // The root repository answers by digest for the whole project (see Repositories.projectHasContent).
        if (own.isEmpty() && repo.path().isEmpty() && reference.contains(":"))
            own = repositories.projectManifest(repo.project(), digest);
        String mediaType = own.orElseThrow(() -> manifestUnknown(reference));
        try (InputStream in = blobs.open(digest, 0)) {
            return new StoredManifest(digest, mediaType, in.readNBytes((int) MAX_MANIFEST_BYTES));
        }
    }

    /** Validates and stores a manifest; returns its digest and subject (if any). */
    public PutManifestResult putManifest(RepositoryKey repo, String reference, byte[] body, String contentType)
            throws IOException {
        Digest digest = Digest.sha256(body);
        boolean byDigest = reference.contains(":");
        if (byDigest) {
            Digest claimed = Digest.parse(reference)
                    .orElseThrow(() -> new RegistryException(ErrorCode.DIGEST_INVALID, "invalid digest " + reference));
            if (!claimed.algorithm().equals("sha256")) {
                digest = Digest.of(claimed.algorithm(), updated(claimed.hasher(), body));
            }
            if (!claimed.equals(digest)) {
                throw new RegistryException(
                        ErrorCode.DIGEST_INVALID,
                        "manifest content has digest " + digest + ", not " + claimed,
                        Map.of("digest", reference));
            }
        } else if (!TAG.matcher(reference).matches()) {
            throw new RegistryException(
                    ErrorCode.MANIFEST_INVALID, "invalid tag " + reference, Map.of("tag", reference));
        }
        ParsedManifest manifest = ParsedManifest.parse(body, contentType);
        for (ParsedManifest.Reference blob : manifest.blobs()) {
            if (blob.foreign()) continue;
            long size;
            if (repositories.hasBlob(repo, blob.digest())) {
                size = blobs.size(blob.digest()).orElseThrow(() -> blobMissing(blob));
            } else if (repositories.manifest(repo, blob.digest()).isPresent()) {
                size = blobs.size(blob.digest()).orElseThrow(() -> blobMissing(blob));
            } else {
                throw blobMissing(blob);
            }
            checkSize(blob, size);
        }
        for (ParsedManifest.Reference child : manifest.children()) {
            if (repositories.manifest(repo, child.digest()).isEmpty()) throw blobMissing(child);
            checkSize(child, blobs.size(child.digest()).orElseThrow(() -> blobMissing(child)));
        }
        CommitOutcome outcome = blobs.put(new java.io.ByteArrayInputStream(body), digest, MAX_MANIFEST_BYTES);
        if (outcome != CommitOutcome.STORED) throw new IllegalStateException("manifest digest changed while storing");
        repositories.putManifest(repo, digest, manifest.mediaType());
        if (!byDigest) repositories.putTag(repo, reference, digest);
        if (manifest.subject().isPresent()) {
            repositories.addReferrer(
                    repo,
                    manifest.subject().get(),
                    new Descriptor(
                            manifest.mediaType(),
                            digest.toString(),
                            body.length,
                            manifest.artifactType(),
                            manifest.annotations()));
        }
        return new PutManifestResult(digest, manifest.subject());
    }

    /** By tag: removes the tag. By digest: removes the manifest, every tag on it, and its referrer entry. */
    public void deleteManifest(RepositoryKey repo, String reference) throws IOException {
        if (!reference.contains(":")) {
            if (!TAG.matcher(reference).matches() || !repositories.deleteTag(repo, reference))
                throw manifestUnknown(reference);
            return;
        }
        Digest digest = digestReference(reference);
        if (repositories.manifest(repo, digest).isEmpty()) throw manifestUnknown(reference); // own manifests only
        StoredManifest stored = getManifest(repo, reference);
        for (String tag : repositories.tags(repo)) {
            if (repositories.tag(repo, tag).filter(digest::equals).isPresent()) repositories.deleteTag(repo, tag);
        }
        try {
            ParsedManifest.parse(stored.content(), stored.mediaType())
                    .subject()
                    .ifPresent(subject -> removeReferrer(repo, subject, digest));
        } catch (RegistryException e) {
            // A stored manifest was valid when accepted; nothing to unlink if it no longer parses.
        }
        repositories.deleteManifest(repo, digest);
    }

    // ---- tags and referrers ---------------------------------------------------------------

    public TagsPage tags(RepositoryKey repo, Integer n, String last) throws IOException {
        if (!repositories.exists(repo)) throw new RegistryException(ErrorCode.NAME_UNKNOWN, "repository is unknown");
        List<String> after = new ArrayList<>();
        for (String tag : repositories.tags(repo)) {
            if (last == null || tag.compareTo(last) > 0) after.add(tag);
        }
        if (n == null || after.size() <= n) return new TagsPage(after, false);
        return new TagsPage(after.subList(0, n), true);
    }

    public List<Descriptor> referrers(RepositoryKey repo, Digest subject, String artifactType) throws IOException {
        List<Descriptor> all = repositories.referrers(repo, subject);
        if (artifactType == null) return all;
        return all.stream().filter(d -> artifactType.equals(d.artifactType())).toList();
    }

    // ---- helpers --------------------------------------------------------------------------

    private Digest resolve(RepositoryKey repo, String reference) throws IOException {
        if (reference.contains(":")) return digestReference(reference);
        if (!TAG.matcher(reference).matches()) {
            throw new RegistryException(
                    ErrorCode.MANIFEST_INVALID, "invalid tag " + reference, Map.of("tag", reference));
        }
        return repositories.tag(repo, reference).orElseThrow(() -> manifestUnknown(reference));
    }

    private static Digest digestReference(String reference) {
        return Digest.parse(reference)
                .orElseThrow(() -> new RegistryException(ErrorCode.DIGEST_INVALID, "invalid digest " + reference));
    }

    private void removeReferrer(RepositoryKey repo, Digest subject, Digest referrer) {
        try {
            repositories.removeReferrer(repo, subject, referrer);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static java.security.MessageDigest updated(java.security.MessageDigest hasher, byte[] body) {
        hasher.update(body);
        return hasher;
    }

    private static void checkSize(ParsedManifest.Reference ref, long actual) {
        if (ref.size() != actual) {
            throw new RegistryException(
                    ErrorCode.MANIFEST_INVALID,
                    "descriptor " + ref.digest() + " says size " + ref.size() + " but the blob has " + actual
                            + " bytes",
                    Map.of("digest", ref.digest().toString()));
        }
    }

    private static RegistryException blobMissing(ParsedManifest.Reference ref) {
        return new RegistryException(
                ErrorCode.MANIFEST_BLOB_UNKNOWN,
                "manifest references " + ref.digest() + ", which this repository does not hold",
                Map.of("digest", ref.digest().toString()));
    }

    private static RegistryException blobUnknown(Digest digest) {
        return new RegistryException(
                ErrorCode.BLOB_UNKNOWN,
                "blob " + digest + " is unknown to this repository",
                Map.of("digest", digest.toString()));
    }

    private static RegistryException manifestUnknown(String reference) {
        return new RegistryException(
                ErrorCode.MANIFEST_UNKNOWN,
                "manifest " + reference + " is unknown to this repository",
                Map.of("reference", reference));
    }

    private RegistryException tooLarge() {
        return new RegistryException(
                ErrorCode.SIZE_INVALID,
                413,
                "blob exceeds the registry's limit of " + maxBlobBytes + " bytes; upload discarded",
                Map.of("limit", maxBlobBytes));
    }

    private static RegistryException uploadUnknown(String id) {
        return new RegistryException(ErrorCode.BLOB_UPLOAD_UNKNOWN, "upload " + id + " is unknown or finished");
    }

    private static RegistryException rangeInvalid(String id, long start, long size) {
        return new RegistryException(
                ErrorCode.BLOB_UPLOAD_INVALID,
                416,
                "chunk starts at " + start + " but the upload holds " + size + " bytes",
                Map.of("range", new UploadStatus(id, size).range()));
    }

    private static RegistryException digestMismatch(Digest digest) {
        return new RegistryException(
                ErrorCode.DIGEST_INVALID,
                "uploaded content does not match " + digest + "; upload discarded",
                Map.of("digest", digest.toString()));
    }

    /** Result of storing a manifest. */
    public record PutManifestResult(Digest digest, Optional<Digest> subject) {}
}
