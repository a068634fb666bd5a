package dev.baton.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.server.testing.MutableClock;
import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import dev.baton.store.blob.BlobStorage;
import dev.baton.store.blob.Digest;
import dev.baton.store.blob.StagedUpload;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upload sessions kept in the store, with two {@link Registry} instances (two nodes) on one
 * store and one storage directory: races on one session are settled by the store's
 * compare-and-set, and what crashed writers leave behind is swept.
 */
class RegistrySessionsTest {
    @TempDir
    Path dir;

    final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    final RepositoryKey repo = new RepositoryKey(ProjectUuid.random(), "img");
    Store store;
    BlobStorage storage;
    Registry nodeA;
    Registry nodeB;

    @BeforeEach
    void open() {
        store = StoreFactory.open(null, dir);
        storage = BlobStorage.directory(dir.resolve("storage"));
        nodeA = new Registry(storage.blobs(), new ObjectRepositories(storage.objects()), store, 1 << 20, clock);
        BlobStorage other = BlobStorage.directory(dir.resolve("storage"));
        nodeB = new Registry(other.blobs(), new ObjectRepositories(other.objects()), store, 1 << 20, clock);
    }

    @AfterEach
    void close() {
        store.close();
    }

    static InputStream text(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void ofTwoChunksRacingOnOneSessionOneIsRecordedAndTheOtherRefusedAndRemoved() throws Exception {
        String id = nodeA.startUpload(repo).id();
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // Node A reads the session (0 bytes) and starts streaming a chunk that waits...
        InputStream slow = new InputStream() {
            final InputStream content = text("from A");

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                reading.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
                return content.read(b, off, len);
            }
        };
        CompletableFuture<UploadStatus> onA = CompletableFuture.supplyAsync(() -> {
            try {
                return nodeA.appendChunk(repo, id, 0L, null, slow);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertThat(reading.await(10, TimeUnit.SECONDS)).isTrue();
        // ...while node B appends to the same session first.
        assertThat(nodeB.appendChunk(repo, id, 0L, null, text("from B")).size()).isEqualTo(6);
        release.countDown();
        assertThatThrownBy(onA::join)
                .hasCauseInstanceOf(RegistryException.class)
                .cause()
                .satisfies(e -> assertThat(((RegistryException) e).status()).isEqualTo(416));

        // Only B's chunk is recorded and stored; A's was removed.
        assertThat(nodeA.uploadStatus(repo, id).size()).isEqualTo(6);
        try (var files = Files.list(dir.resolve("storage/_uploads").resolve(id))) {
            assertThat(files).hasSize(1);
        }
        Digest digest = Digest.sha256("from B".getBytes(StandardCharsets.UTF_8));
        nodeA.finishUpload(repo, id, digest, 0L, InputStream.nullInputStream());
        try (InputStream in = nodeB.openBlob(digest, 0)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("from B");
        }
        // Finished once: the other node cannot finish or append to it again.
        assertThatThrownBy(() -> nodeB.finishUpload(repo, id, digest, 0L, InputStream.nullInputStream()))
                .isInstanceOf(RegistryException.class)
                .hasMessageContaining("unknown");
    }

    @Test
    void aSessionBelongsToItsRepositoryOnEveryNode() throws Exception {
        String id = nodeA.startUpload(repo).id();
        RepositoryKey elsewhere = new RepositoryKey(repo.project(), "other");
        RepositoryKey otherProject = new RepositoryKey(ProjectUuid.random(), "img");
        assertThatThrownBy(() -> nodeB.uploadStatus(elsewhere, id)).isInstanceOf(RegistryException.class);
        assertThatThrownBy(() -> nodeB.appendChunk(otherProject, id, null, null, text("x")))
                .isInstanceOf(RegistryException.class);
        assertThat(nodeB.uploadStatus(repo, id).size()).isZero();
    }

    @Test
    void idleSessionsAndOrphanedStagingAreSweptByAnyNode() throws Exception {
        String idle = nodeA.startUpload(repo).id();
        nodeA.appendChunk(repo, idle, null, null, text("abandoned"));
        // Staging data no session owns: a node died after writing a chunk, before recording it.
        var orphan = storage.blobs().startUpload();
        orphan.append(text("orphan"), 100);
        Path orphanDir = storage.blobs().stagedUploads().stream()
                .map(StagedUpload::id)
                .filter(i -> !i.equals(idle))
                .map(i -> dir.resolve("storage/_uploads").resolve(i))
                .findFirst()
                .orElseThrow();
        long staleMillis = clock.instant()
                .minus(Registry.UPLOAD_IDLE_LIMIT)
                .minusSeconds(60)
                .toEpochMilli();
        try (var files = Files.list(orphanDir)) {
            for (Path f : files.toList()) Files.setLastModifiedTime(f, FileTime.fromMillis(staleMillis));
        }
        Files.setLastModifiedTime(orphanDir, FileTime.fromMillis(staleMillis));

        clock.advance(Registry.UPLOAD_IDLE_LIMIT.plusSeconds(1));
        String fresh = nodeB.startUpload(repo).id();
        assertThat(store.uploads().findRegistryUpload(idle)).isEmpty();
        assertThat(nodeB.openUploads()).isEqualTo(1);
        assertThat(storage.blobs().stagedUploads()).extracting(StagedUpload::id).containsExactly(fresh);
    }
}
