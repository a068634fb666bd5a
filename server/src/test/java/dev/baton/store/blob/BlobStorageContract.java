package dev.baton.store.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.dispatch.output.ObjectOutputStore;
import dev.baton.dispatch.output.OutputStore;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every blob storage backend does, run against each (a directory, an S3-compatible bucket).
 * Two storage instances over the same directory or bucket stand for two server nodes: neither
 * may rely on anything the other holds in memory.
 */
abstract class BlobStorageContract {
    BlobStorage nodeA;
    BlobStorage nodeB;

    /** A fresh, empty storage location, opened twice (as two nodes would). */
    abstract BlobStorage[] openTwice() throws Exception;

    @BeforeEach
    void open() throws Exception {
        BlobStorage[] both = openTwice();
        nodeA = both[0];
        nodeB = both[1];
    }

    @AfterEach
    void close() throws Exception {
        if (nodeA != null) nodeA.close();
        if (nodeB != null) nodeB.close();
    }

    static InputStream stream(byte[] content) {
        return new ByteArrayInputStream(content);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] random(int size, long seed) {
        byte[] content = new byte[size];
        new Random(seed).nextBytes(content);
        return content;
    }

    @Test
    void storesVerifiedContentOnceAndReadsItFromAnOffsetOnEveryNode() throws Exception {
        Digest digest = Digest.sha256(bytes("hello world"));
        assertThat(nodeA.blobs().put(stream(bytes("hello world")), digest, 100)).isEqualTo(CommitOutcome.STORED);
        assertThat(nodeB.blobs().put(stream(bytes("hello world")), digest, 100)).isEqualTo(CommitOutcome.STORED);
        assertThat(nodeB.blobs().size(digest)).hasValue(11L);
        try (InputStream in = nodeB.blobs().open(digest, 6)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("world");
        }
        assertThat(nodeA.blobs().size(Digest.sha256(bytes("absent")))).isEmpty();
        assertThat(nodeA.blobs().pendingUploads()).isZero();
    }

    @Test
    void anUploadStartedOnOneNodeIsContinuedAndVerifiedOnAnother() throws Exception {
        byte[] first = random(3000, 1);
        byte[] second = random(2000, 2);
        byte[] whole = new byte[5000];
        System.arraycopy(first, 0, whole, 0, 3000);
        System.arraycopy(second, 0, whole, 3000, 2000);

        BlobUpload onA = nodeA.blobs().startUpload();
        ChunkedUpload started = (ChunkedUpload) onA;
        started.append(stream(first), 10_000);

        // Node B knows only what a database row would hold: the id and the chunk list. No running hash.
        ChunkedUpload onB = ChunkedUpload.resume(nodeB.blobs(), started.id(), started.chunks(), null);
        assertThat(onB.size()).isEqualTo(3000);
        onB.append(stream(second), 10_000);
        assertThat(onB.hash()).as("B never saw the first chunk").isNull();

        // A sha512 digest works as well as sha256: verified by reading the chunks back.
        java.security.MessageDigest sha512 = Digest.newHasher("sha512");
        sha512.update(whole);
        Digest digest = Digest.of("sha512", sha512);
        assertThat(onB.commit(digest)).isEqualTo(CommitOutcome.STORED);
        try (InputStream in = nodeA.blobs().open(digest, 0)) {
            assertThat(in.readAllBytes()).isEqualTo(whole);
        }
        assertThat(nodeA.blobs().pendingUploads()).isZero();
    }

    @Test
    void aMismatchFoundByReadingChunksBackDiscardsTheUpload() throws Exception {
        ChunkedUpload onA = (ChunkedUpload) nodeA.blobs().startUpload();
        onA.append(stream(bytes("actual")), 100);
        ChunkedUpload onB = ChunkedUpload.resume(nodeB.blobs(), onA.id(), onA.chunks(), null);
        Digest claimed = Digest.sha256(bytes("expected"));
        assertThat(onB.commit(claimed)).isEqualTo(CommitOutcome.DIGEST_MISMATCH);
        assertThat(nodeA.blobs().size(claimed)).isEmpty();
        assertThat(nodeA.blobs().size(Digest.sha256(bytes("actual")))).isEmpty();
        assertThat(nodeB.blobs().pendingUploads()).isZero();
    }

    @Test
    void aBlobLargerThanAPartStreamsInPartsAndReadsBackWhole() throws Exception {
        // 12 MiB: more than two parts of the S3 store's 5 MiB (tests use the smallest part S3 allows).
        byte[] layer = random(12 * 1024 * 1024 + 123, 3);
        Digest digest = Digest.sha256(layer);
        assertThat(nodeA.blobs().put(stream(layer), digest, 1L << 30)).isEqualTo(CommitOutcome.STORED);
        assertThat(nodeB.blobs().size(digest)).hasValue((long) layer.length);
        try (InputStream in = nodeB.blobs().open(digest, 5 * 1024 * 1024 + 7)) {
            byte[] tail = in.readAllBytes();
            assertThat(tail).hasSize(layer.length - (5 * 1024 * 1024 + 7));
            assertThat(Digest.sha256(tail))
                    .isEqualTo(Digest.sha256(java.util.Arrays.copyOfRange(layer, 5 * 1024 * 1024 + 7, layer.length)));
        }

        // The same in two chunks from two nodes, the first a whole number of parts and then some.
        byte[] other = random(11 * 1024 * 1024, 4);
        ChunkedUpload onA = (ChunkedUpload) nodeA.blobs().startUpload();
        onA.append(new ByteArrayInputStream(other, 0, 6 * 1024 * 1024), 1L << 30);
        ChunkedUpload onB = ChunkedUpload.resume(nodeB.blobs(), onA.id(), onA.chunks(), null);
        onB.append(new ByteArrayInputStream(other, 6 * 1024 * 1024, 5 * 1024 * 1024), 1L << 30);
        assertThat(onB.commit(Digest.sha256(other))).isEqualTo(CommitOutcome.STORED);
        try (InputStream in = nodeA.blobs().open(Digest.sha256(other), 0)) {
            assertThat(Digest.sha256(in.readAllBytes())).isEqualTo(Digest.sha256(other));
        }
        assertThat(nodeA.blobs().pendingUploads()).isZero();
    }

    @Test
    void anOversizedUploadIsDiscardedWhole() throws Exception {
        BlobUpload upload = nodeA.blobs().startUpload();
        upload.append(stream(bytes("12345")), 8);
        assertThatThrownBy(() -> upload.append(stream(bytes("67890")), 8)).isInstanceOf(BlobTooLargeException.class);
        assertThat(nodeA.blobs().pendingUploads()).isZero();
        byte[] big = random(S3Bucket.MIN_PART_SIZE + 10, 5);
        assertThatThrownBy(() -> nodeA.blobs().put(stream(big), Digest.sha256(big), S3Bucket.MIN_PART_SIZE + 9))
                .isInstanceOf(BlobTooLargeException.class);
        assertThat(nodeA.blobs().pendingUploads()).isZero();
        assertThat(nodeA.blobs().size(Digest.sha256(big))).isEmpty();
    }

    @Test
    void twoNodesCommittingTheSameContentAtOnceStoreOneWholeBlob() throws Exception {
        byte[] content = random(300_000, 6);
        Digest digest = Digest.sha256(content);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<CommitOutcome>> results = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                BlobStore node = i % 2 == 0 ? nodeA.blobs() : nodeB.blobs();
                results.add(pool.submit((Callable<CommitOutcome>) () -> node.put(stream(content), digest, 1 << 20)));
            }
            for (Future<CommitOutcome> r : results) assertThat(r.get()).isEqualTo(CommitOutcome.STORED);
        } finally {
            pool.shutdownNow();
        }
        try (InputStream in = nodeB.blobs().open(digest, 0)) {
            assertThat(in.readAllBytes()).isEqualTo(content);
        }
        assertThat(nodeA.blobs().pendingUploads()).isZero();
    }

    @Test
    void stagedUploadsAreListedUntilDiscarded() throws Exception {
        ChunkedUpload upload = (ChunkedUpload) nodeA.blobs().startUpload();
        upload.append(stream(bytes("partial")), 100);
        assertThat(nodeB.blobs().stagedUploads()).extracting(StagedUpload::id).containsExactly(upload.id());
        nodeB.blobs().discard(upload.id());
        nodeB.blobs().discard(upload.id());
        assertThat(nodeA.blobs().stagedUploads()).isEmpty();
    }

    @Test
    void namedObjectsAreWrittenWholeListedAndDeleted() throws Exception {
        NamedObjects a = nodeA.objects();
        NamedObjects b = nodeB.objects();
        a.write("p/registry/img/_manifests/tags/v2", bytes("sha256:2"));
        a.write("p/registry/img/_manifests/tags/v1", bytes("sha256:1"));
        a.write("p/registry/img/_manifests/tags/v1", bytes("sha256:1b"));
        a.write("p/registry/img/_manifests/revisions/sha256/ab", bytes("type"));
        assertThat(b.read("p/registry/img/_manifests/tags/v1"))
                .hasValueSatisfying(v -> assertThat(new String(v)).isEqualTo("sha256:1b"));
        assertThat(b.read("p/registry/img/_manifests/tags/v3")).isEmpty();
        assertThat(b.list("p/registry/img/_manifests/tags/")).containsExactly("v1", "v2");
        assertThat(b.list("p/registry/img/_manifests/"))
                .as("direct children only")
                .isEmpty();
        assertThat(b.list("p/registry/none/")).isEmpty();
        assertThat(b.anyUnder("p/registry/img/_manifests/")).isTrue();
        assertThat(b.anyUnder("p/registry/other/_manifests/")).isFalse();
        assertThat(b.exists("p/registry/img/_manifests/tags/v2")).isTrue();
        assertThat(b.delete("p/registry/img/_manifests/tags/v2")).isTrue();
        assertThat(b.delete("p/registry/img/_manifests/tags/v2")).isFalse();
        assertThat(a.exists("p/registry/img/_manifests/tags/v2")).isFalse();
        assertThat(a.list("p/registry/img/_manifests/tags/")).containsExactly("v1");
    }
    /**
     * Job output (docs/protocol.md, "Job output"): each attempt's under its own key, so storing
     * and removing one attempt's output (a refused late word) leaves another attempt's byte for
     * byte; output stored at the job's one old key is still read for an attempt with none.
     */
    @Test
    void jobOutputIsKeptPerAttemptAndTheOldJobKeyIsStillRead() throws Exception {
        ProjectUuid project = ProjectUuid.random();
        JobUuid job = JobUuid.random();
        OutputStore onA = new ObjectOutputStore(nodeA.objects());
        OutputStore onB = new ObjectOutputStore(nodeB.objects());
        JobOutput accepted =
                new JobOutput(List.of(new IterationResult(0, "accepted", "err", Map.of("r.json", "{}"))), null);
        JobOutput late = new JobOutput(List.of(new IterationResult(0, "late", "", Map.of())), null);

        onB.put(project, job, 2, accepted);
        byte[] stored =
                nodeA.objects().read(ObjectOutputStore.key(project, job, 2)).orElseThrow();
        onA.put(project, job, 1, late); // the late word of attempt 1, then refused
        onA.remove(project, job, 1);
        assertThat(nodeB.objects().read(ObjectOutputStore.key(project, job, 2)))
                .hasValueSatisfying(b -> assertThat(b).isEqualTo(stored));
        assertThat(onA.get(project, job, 2)).contains(accepted);
        assertThat(onA.get(project, job, 1)).isEmpty();

        JobUuid old = JobUuid.random();
        nodeA.objects()
                .write(ObjectOutputStore.legacyKey(project, old), Wire.mapper().writeValueAsBytes(accepted));
        assertThat(onB.get(project, old, 1))
                .as("the old key, read for an attempt without its own")
                .contains(accepted);
        onB.put(project, old, 2, late);
        assertThat(onA.get(project, old, 2))
                .as("an attempt's own output comes first")
                .contains(late);
    }

    /**
     * Output a node of the previous version stored per attempt under the v1 layout is still read
     * for that attempt, comes after a v2 object of the same attempt, and is removed with it.
     */
    @Test
    void jobOutputStoredUnderTheV1LayoutIsStillReadAndRemoved() throws Exception {
        ProjectUuid project = ProjectUuid.random();
        JobUuid job = JobUuid.random();
        OutputStore onA = new ObjectOutputStore(nodeA.objects());
        OutputStore onB = new ObjectOutputStore(nodeB.objects());
        JobOutput older = new JobOutput(List.of(new IterationResult(0, "v1", "", Map.of())), null);
        JobOutput legacy = new JobOutput(List.of(new IterationResult(0, "v0", "", Map.of())), null);
        JobOutput newer = new JobOutput(List.of(new IterationResult(0, "v2", "", Map.of())), null);
        assertThat(ObjectOutputStore.v1Key(project, job, 1))
                .isEqualTo(project + "/output/v1/jobs/" + job + "/attempts/1");

        nodeA.objects()
                .write(ObjectOutputStore.legacyKey(project, job), Wire.mapper().writeValueAsBytes(legacy));
        nodeA.objects()
                .write(ObjectOutputStore.v1Key(project, job, 1), Wire.mapper().writeValueAsBytes(older));
        nodeA.objects()
                .write(ObjectOutputStore.v1Key(project, job, 2), Wire.mapper().writeValueAsBytes(older));
        assertThat(onB.get(project, job, 1))
                .as("the v1 key before the job's old one")
                .contains(older);
        onB.put(project, job, 2, newer);
        assertThat(onA.get(project, job, 2)).as("the v2 key before the v1 one").contains(newer);

        onB.remove(project, job, 1);
        assertThat(nodeA.objects().exists(ObjectOutputStore.v1Key(project, job, 1)))
                .as("v1 output removed")
                .isFalse();
        assertThat(onA.get(project, job, 1))
                .as("only the job's old output is left")
                .contains(legacy);
        onA.remove(project, job, 2);
        assertThat(nodeB.objects().exists(ObjectOutputStore.key(project, job, 2)))
                .as("v2 output removed")
                .isFalse();
        assertThat(nodeB.objects().exists(ObjectOutputStore.v1Key(project, job, 2)))
                .as("v1 output of the same attempt removed")
                .isFalse();
        assertThat(nodeA.objects().exists(ObjectOutputStore.legacyKey(project, job)))
                .as("the job's old key is never removed")
                .isTrue();
    }
}
