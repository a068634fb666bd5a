package dev.baton.server.registry;

import dev.baton.server.blob.BlobStore;
import dev.baton.server.blob.BlobTooLargeException;
import dev.baton.server.blob.BlobUpload;
import dev.baton.server.blob.CommitOutcome;
import dev.baton.server.blob.Digest;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;

/**
 * The registry's operations on already authorized, resolved repositories, independent of HTTP.
 * Upload sessions live in memory with their data in the blob store's temporary area: they
 * survive no restart (the temporary area is emptied on start), and a session idle for
 * {@link #UPLOAD_IDLE_LIMIT} is discarded.
 */
public final class Registry {
    public static final long MAX_MANIFEST_BYTES = 4L * 1024 * 1024;
    public static final Duration UPLOAD_IDLE_LIMIT = Duration.ofHours(1);
    private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");

    private final BlobStore blobs;
    private final Repositories repositories;
    private final long maxBlobBytes;
    private final Clock clock;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    public Registry(BlobStore blobs, Repositories repositories, long maxBlobBytes, Clock clock) {
        this.blobs = blobs;
        this.repositories = repositories;
        this.maxBlobBytes = maxBlobBytes;
        this.clock = clock;
    }

    public long maxBlobBytes() {
        return maxBlobBytes;
    }

    // ---- blobs ----------------------------------------------------------------------------

    /** Size of a blob this repository may read; BLOB_UNKNOWN otherwise (also for other projects' blobs). */
    public long blobSize(RepositoryKey repo, Digest digest) throws IOException {
        boolean readable = repositories.hasBlob(repo, digest) || repositories.manifest(repo, digest).isPresent()
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
        sessions.put(id, new Session(repo, blobs.startUpload(), clock.instant()));
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
        Session session = locked(repo, id);
        try {
            return new UploadStatus(id, session.upload.size());
        } finally {
            session.lock.unlock();
        }
    }

    /**
     * Appends a chunk. {@code rangeStart} (from Content-Range) must equal the bytes received so far;
     * {@code expectedLength} (from Content-Length or the range) is checked before anything is written.
     */
    public UploadStatus appendChunk(RepositoryKey repo, String id, Long rangeStart, Long expectedLength, InputStream body)
            throws IOException {
        Session session = locked(repo, id);
        try {
            long size = session.upload.size();
            if (rangeStart != null && rangeStart != size) {
                throw new RegistryException(ErrorCode.BLOB_UPLOAD_INVALID, 416,
                        "chunk starts at " + rangeStart + " but the upload holds " + size + " bytes",
                        Map.of("range", new UploadStatus(id, size).range()));
            }
            append(id, session, expectedLength, body);
            session.lastActive = clock.instant();
            return new UploadStatus(id, session.upload.size());
        } finally {
            session.lock.unlock();
        }
    }

    /** Appends an optional last chunk, verifies the digest and links the blob; a mismatch discards the upload. */
    public void finishUpload(RepositoryKey repo, String id, Digest digest, Long expectedLength, InputStream body)
            throws IOException {
        Session session = locked(repo, id);
        try {
            if (expectedLength == null || expectedLength > 0) append(id, session, expectedLength, body);
            sessions.remove(id);
            CommitOutcome outcome = session.upload.commit(digest);
            if (outcome == CommitOutcome.DIGEST_MISMATCH) throw digestMismatch(digest);
            repositories.linkBlob(repo, digest);
        } finally {
            session.lock.unlock();
        }
    }

    public void cancelUpload(RepositoryKey repo, String id) throws IOException {
        Session session = locked(repo, id);
        try {
            sessions.remove(id);
            session.upload.cancel();
        } finally {
            session.lock.unlock();
        }
    }

    /** Upload sessions open in memory (observability and tests). */
    public int openUploads() {
        return sessions.size();
    }

    private void append(String id, Session session, Long expectedLength, InputStream body) throws IOException {
        long before = session.upload.size();
        if (expectedLength != null && before + expectedLength > maxBlobBytes) {
            sessions.remove(id);
            session.upload.cancel();
            throw tooLarge();
        }
        try {
            session.upload.append(body, maxBlobBytes);
        } catch (BlobTooLargeException e) {
            sessions.remove(id);
            throw tooLarge();
        } catch (IOException | RuntimeException e) {
            sessions.remove(id); // the store discarded the broken upload
            throw e;
        }
        long received = session.upload.size() - before;
        if (expectedLength != null && received != expectedLength) {
            sessions.remove(id);
            session.upload.cancel();
            throw new RegistryException(ErrorCode.SIZE_INVALID,
                    "received " + received + " bytes where " + expectedLength + " were announced; upload discarded");
        }
    }

    /**
     * The session, locked. Checked again once the lock is held: a request that waited behind the
     * one finishing or cancelling the upload must find it gone, not write into a finished upload.
     */
    private Session locked(RepositoryKey repo, String id) {
        Session session = sessions.get(id);
        if (session != null && session.repo.equals(repo)) {
            session.lock.lock();
            if (sessions.get(id) == session) return session;
            session.lock.unlock();
        }
        throw new RegistryException(ErrorCode.BLOB_UPLOAD_UNKNOWN, "upload " + id + " is unknown or finished");
    }

    private void discardIdleUploads() throws IOException {
        Instant cutoff = clock.instant().minus(UPLOAD_IDLE_LIMIT);
        for (Iterator<Map.Entry<String, Session>> it = sessions.entrySet().iterator(); it.hasNext(); ) {
            Session session = it.next().getValue();
            if (!session.lock.tryLock()) continue; // a request is using it right now: not idle
            try {
                if (session.lastActive.isBefore(cutoff)) {
                    it.remove();
                    session.upload.cancel();
                }
            } finally {
                session.lock.unlock();
            }
        }
    }

    // ---- manifests ------------------------------------------------------------------------

    public StoredManifest getManifest(RepositoryKey repo, String reference) throws IOException {
        Digest digest = resolve(repo, reference);
        Optional<String> own = repositories.manifest(repo, digest);
        // The root repository answers by digest for the whole project (see Repositories.projectHasContent).
        if (own.isEmpty() && repo.path().isEmpty() && reference.contains(":")) own = repositories.projectManifest(repo.project(), digest);
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
            Digest claimed = Digest.parse(reference).orElseThrow(() -> new RegistryException(ErrorCode.DIGEST_INVALID,
                    "invalid digest " + reference));
            if (!claimed.algorithm().equals("sha256")) {
                digest = Digest.of(claimed.algorithm(), updated(claimed.hasher(), body));
            }
            if (!claimed.equals(digest)) {
                throw new RegistryException(ErrorCode.DIGEST_INVALID, "manifest content has digest " + digest
                        + ", not " + claimed, Map.of("digest", reference));
            }
        } else if (!TAG.matcher(reference).matches()) {
            throw new RegistryException(ErrorCode.MANIFEST_INVALID, "invalid tag " + reference, Map.of("tag", reference));
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
            repositories.addReferrer(repo, manifest.subject().get(), new Descriptor(
                    manifest.mediaType(), digest.toString(), body.length, manifest.artifactType(), manifest.annotations()));
        }
        return new PutManifestResult(digest, manifest.subject());
    }

    /** By tag: removes the tag. By digest: removes the manifest, every tag on it, and its referrer entry. */
    public void deleteManifest(RepositoryKey repo, String reference) throws IOException {
        if (!reference.contains(":")) {
            if (!TAG.matcher(reference).matches() || !repositories.deleteTag(repo, reference)) throw manifestUnknown(reference);
            return;
        }
        Digest digest = digestReference(reference);
        if (repositories.manifest(repo, digest).isEmpty()) throw manifestUnknown(reference); // own manifests only
        StoredManifest stored = getManifest(repo, reference);
        for (String tag : repositories.tags(repo)) {
            if (repositories.tag(repo, tag).filter(digest::equals).isPresent()) repositories.deleteTag(repo, tag);
        }
        try {
            ParsedManifest.parse(stored.content(), stored.mediaType()).subject()
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
            throw new RegistryException(ErrorCode.MANIFEST_INVALID, "invalid tag " + reference, Map.of("tag", reference));
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
            throw new RegistryException(ErrorCode.MANIFEST_INVALID, "descriptor " + ref.digest() + " says size "
                    + ref.size() + " but the blob has " + actual + " bytes", Map.of("digest", ref.digest().toString()));
        }
    }

    private static RegistryException blobMissing(ParsedManifest.Reference ref) {
        return new RegistryException(ErrorCode.MANIFEST_BLOB_UNKNOWN, "manifest references " + ref.digest()
                + ", which this repository does not hold", Map.of("digest", ref.digest().toString()));
    }

    private static RegistryException blobUnknown(Digest digest) {
        return new RegistryException(ErrorCode.BLOB_UNKNOWN, "blob " + digest + " is unknown to this repository",
                Map.of("digest", digest.toString()));
    }

    private static RegistryException manifestUnknown(String reference) {
        return new RegistryException(ErrorCode.MANIFEST_UNKNOWN, "manifest " + reference + " is unknown to this repository",
                Map.of("reference", reference));
    }

    private RegistryException tooLarge() {
        return new RegistryException(ErrorCode.SIZE_INVALID, 413, "blob exceeds the registry's limit of "
                + maxBlobBytes + " bytes; upload discarded", Map.of("limit", maxBlobBytes));
    }

    private static RegistryException digestMismatch(Digest digest) {
        return new RegistryException(ErrorCode.DIGEST_INVALID, "uploaded content does not match " + digest
                + "; upload discarded", Map.of("digest", digest.toString()));
    }

    /** Result of storing a manifest. */
    public record PutManifestResult(Digest digest, Optional<Digest> subject) {}

    private static final class Session {
        final RepositoryKey repo;
        final BlobUpload upload;
        // A lock rather than synchronized: a chunk streams for long, and must not pin a carrier thread.
        final ReentrantLock lock = new ReentrantLock();
        Instant lastActive;

        Session(RepositoryKey repo, BlobUpload upload, Instant lastActive) {
            this.repo = repo;
            this.upload = upload;
            this.lastActive = lastActive;
        }
    }
}
