package dev.baton.registry;

import dev.baton.protocol.job.JobStatus;
import dev.baton.store.Job;
import dev.baton.store.Store;
import dev.baton.store.blob.Digest;
import dev.baton.store.token.Grant;
import dev.baton.store.token.PullScope;
import java.io.IOException;
import java.time.Clock;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a job's pull token may fetch (issue 41): only while its attempt is live (the job claimed or
 * running at that attempt, read from the store at every use, so the token is refused the moment
 * the job ends on any node), and only the manifests and blobs of the job's image (an index, the
 * manifests it lists, their configs and layers; a paired job's baseline image too, issue 45).
 * Each pull of an image is audited once
 * ({@code image.pulled}, with the runner and the job), when its top manifest is fetched; the
 * blobs that follow are not, nor are refetches of the manifest by the same attempt.
 */
final class JobPulls {
    private static final Logger LOG = LoggerFactory.getLogger(JobPulls.class);
    static final String AUDIT_ACTION = "image.pulled";
    private static final int MAX_IMAGES = 1_000;
    private static final int MAX_AUDITED = 10_000;

    /** What an image consists of; immutable, since it is named by its digest. */
    private record Contents(Set<Digest> manifests, Set<Digest> blobs) {}

    private final Registry registry;
    private final Store store;
    private final Clock clock;
    private final Map<Digest, Contents> images = boundedMap(MAX_IMAGES);
    private final Map<String, Boolean> audited = boundedMap(MAX_AUDITED);

    JobPulls(Registry registry, Store store, Clock clock) {
        this.registry = registry;
        this.store = store;
        this.clock = clock;
    }

    /** Refuses a manifest fetch by a job's token that its job or image does not allow; audits the image's pull. */
    void manifest(Grant grant, RepositoryKey key, String reference, String address) throws IOException {
        PullScope scope = grant.pull();
        if (scope == null) return;
        Job job = liveAttempt(scope);
        Optional<Digest> digest = Digest.parse(reference);
        if (digest.isEmpty() || !contents(key, scope).manifests().contains(digest.get())) {
            throw refused("this pull token fetches only the image of job " + scope.job() + " by digest");
        }
        for (var image : scope.images())
            if (digest.get().toString().equals(image.toString())) audit(grant, scope, image, job, address);
    }

    /** Refuses a blob fetch by a job's token that its job or image does not allow. */
    void blob(Grant grant, RepositoryKey key, Digest digest) throws IOException {
        PullScope scope = grant.pull();
        if (scope == null) return;
        liveAttempt(scope);
        if (!contents(key, scope).blobs().contains(digest)) {
            throw refused("this pull token fetches only the blobs of the image of job " + scope.job());
        }
    }

    private Job liveAttempt(PullScope scope) {
        Optional<Job> job = store.runs().findJob(scope.job());
        boolean live = job.isPresent()
                && job.get().attempt() == scope.attempt()
                && (job.get().status() == JobStatus.CLAIMED || job.get().status() == JobStatus.RUNNING);
        if (!live) {
            throw refused(
                    "the pull token of job " + scope.job() + " attempt " + scope.attempt() + " ended with its attempt");
        }
        return job.get();
    }

    /** What the token's images consist of: the job's, and a paired job's baseline image (issue 45). */
    private Contents contents(RepositoryKey key, PullScope scope) throws IOException {
        if (scope.baseline() == null) return contents(key, scope.image());
        Contents job = contents(key, scope.image());
        Contents baseline = contents(key, scope.baseline());
        Set<Digest> manifests = new HashSet<>(job.manifests());
        manifests.addAll(baseline.manifests());
        Set<Digest> blobs = new HashSet<>(job.blobs());
        blobs.addAll(baseline.blobs());
        return new Contents(manifests, blobs);
    }

    private Contents contents(RepositoryKey key, dev.baton.protocol.value.ImageDigest digest) throws IOException {
        Digest image =
                Digest.parse(digest.toString()).orElseThrow(() -> refused("the pull token names no valid image"));
        synchronized (images) {
            Contents known = images.get(image);
            if (known != null) return known;
        }
        Set<Digest> manifests = new HashSet<>();
        Set<Digest> blobs = new HashSet<>();
        collect(key, image, manifests, blobs, 0);
        Contents contents = new Contents(Set.copyOf(manifests), Set.copyOf(blobs));
        synchronized (images) {
            images.put(image, contents);
        }
        return contents;
    }

    /** The manifest {@code digest} and what it references: an index's children, one level deep. */
    private void collect(RepositoryKey key, Digest digest, Set<Digest> manifests, Set<Digest> blobs, int depth)
            throws IOException {
        manifests.add(digest);
        StoredManifest stored;
        try {
            stored = registry.getManifest(key, digest.toString());
        } catch (RegistryException e) {
            return; // not here: the fetch itself answers MANIFEST_UNKNOWN
        }
        ParsedManifest parsed = ParsedManifest.parse(stored.content(), stored.mediaType());
        parsed.blobs().forEach(b -> blobs.add(b.digest()));
        if (depth > 0) return;
        for (ParsedManifest.Reference child : parsed.children()) {
            collect(key, child.digest(), manifests, blobs, depth + 1);
        }
    }

    private void audit(
            Grant grant, PullScope scope, dev.baton.protocol.value.ImageDigest image, Job job, String address) {
        String key = scope.job() + "/" + scope.attempt() + "/" + image;
        synchronized (audited) {
            if (audited.put(key, Boolean.TRUE) != null) return;
        }
        try {
            String detail = "{\"runner\":\"" + grant.subject() + "\",\"job\":\"" + job.uuid() + "\",\"attempt\":"
                    + scope.attempt() + ",\"image\":\"" + image + "\"}";
            store.access()
                    .appendAudit(
                            clock.instant(),
                            "runner:" + grant.subject(),
                            null,
                            AUDIT_ACTION,
                            "/v0/jobs/" + job.uuid(),
                            detail,
                            address);
        } catch (RuntimeException e) {
            LOG.warn("the pull of {} by runner {} for job {} was not audited", image, grant.subject(), job.uuid(), e);
        }
    }

    private static RegistryException refused(String message) {
        return new RegistryException(ErrorCode.DENIED, message);
    }

    private static <K, V> Map<K, V> boundedMap(int max) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > max;
            }
        };
    }
}
