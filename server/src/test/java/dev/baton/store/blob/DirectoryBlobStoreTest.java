package dev.baton.store.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectoryBlobStoreTest {
    @TempDir
    Path root;

    static InputStream stream(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    long files() throws Exception {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile).count();
        }
    }

    @Test
    void storesVerifiedContentOnceAndReadsFromAnOffset() throws Exception {
        DirectoryBlobStore store = DirectoryBlobStore.open(root);
        Digest digest = Digest.sha256("hello world".getBytes(StandardCharsets.UTF_8));
        assertThat(store.put(stream("hello world"), digest, 100)).isEqualTo(CommitOutcome.STORED);
        assertThat(store.put(stream("hello world"), digest, 100)).isEqualTo(CommitOutcome.STORED);
        assertThat(files()).as("deduplicated").isEqualTo(1);
        assertThat(store.size(digest)).hasValue(11L);
        try (InputStream in = store.open(digest, 6)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("world");
        }
        assertThat(Files.exists(root.resolve("blobs/sha256")
                        .resolve(digest.hex().substring(0, 2))
                        .resolve(digest.hex())))
                .isTrue();
    }

    @Test
    void chunkedUploadsVerifyTheWholeContentForEitherAlgorithm() throws Exception {
        DirectoryBlobStore store = DirectoryBlobStore.open(root);
        BlobUpload upload = store.startUpload();
        upload.append(stream("abc"), 100);
        upload.append(stream("def"), 100);
        assertThat(upload.size()).isEqualTo(6);
        java.security.MessageDigest sha512 = Digest.newHasher("sha512");
        sha512.update("abcdef".getBytes(StandardCharsets.UTF_8));
        Digest digest = Digest.of("sha512", sha512);
        assertThat(upload.commit(digest)).isEqualTo(CommitOutcome.STORED);
        assertThat(store.size(digest)).hasValue(6L);
        assertThat(store.pendingUploads()).isZero();
    }

    @Test
    void aMismatchDiscardsTheUpload() throws Exception {
        DirectoryBlobStore store = DirectoryBlobStore.open(root);
        Digest claimed = Digest.sha256("expected".getBytes(StandardCharsets.UTF_8));
        assertThat(store.put(stream("actual"), claimed, 100)).isEqualTo(CommitOutcome.DIGEST_MISMATCH);
        assertThat(store.size(claimed)).isEmpty();
        assertThat(files()).isZero();
    }

    @Test
    void anOversizedUploadIsDiscarded() throws Exception {
        DirectoryBlobStore store = DirectoryBlobStore.open(root);
        BlobUpload upload = store.startUpload();
        upload.append(stream("12345"), 8);
        assertThatThrownBy(() -> upload.append(stream("67890"), 8)).isInstanceOf(BlobTooLargeException.class);
        assertThat(store.pendingUploads()).isZero();
        assertThat(files()).isZero();
    }

    @Test
    void unfinishedUploadsDoNotSurviveARestart() throws Exception {
        DirectoryBlobStore store = DirectoryBlobStore.open(root);
        store.startUpload().append(stream("left behind"), 100);
        assertThat(store.pendingUploads()).isEqualTo(1);
        DirectoryBlobStore reopened = DirectoryBlobStore.open(root);
        assertThat(reopened.pendingUploads()).isZero();
        assertThat(files()).isZero();
    }

    @Test
    void digestsAreValidatedToTheirExactShape() {
        assertThat(Digest.parse("sha256:" + "a".repeat(64))).isPresent();
        assertThat(Digest.parse("sha512:" + "a".repeat(128))).isPresent();
        assertThat(Digest.parse("sha256:" + "A".repeat(64))).isEmpty();
        assertThat(Digest.parse("sha256:../../etc/passwd")).isEmpty();
        assertThat(Digest.parse("md5:d41d8cd98f00b204e9800998ecf8427e")).isEmpty();
        assertThat(Digest.parse("sha256")).isEmpty();
    }
}
