package dev.baton.store.blob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.server.testing.S3rver;
import java.io.ByteArrayInputStream;
import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The storage contract on an S3-compatible bucket: a real s3rver process standing in for AWS S3
 * or MinIO, reached over HTTP by the AWS SDK exactly as in production. Each test gets its own
 * key prefix in one bucket; two clients on it are the two nodes.
 */
@Tag("s3")
class S3BlobStorageTest extends BlobStorageContract {
    static S3rver s3;

    @BeforeAll
    static void startS3() throws Exception {
        s3 = S3rver.start();
    }

    @AfterAll
    static void stopS3() throws Exception {
        if (s3 != null) s3.close();
    }

    @Override
    BlobStorage[] openTwice() {
        S3Location location = s3.freshLocation();
        return new BlobStorage[] {BlobStorage.s3(s3.bucket(location)), BlobStorage.s3(s3.bucket(location))};
    }

    @Test
    void keysFollowTheDirectoryLayoutUnderThePrefix() throws Exception {
        S3Location location = s3.freshLocation();
        try (S3Bucket raw = S3Bucket.connect(
                        new S3Location(
                                location.endpoint(),
                                location.region(),
                                location.bucket(),
                                "",
                                location.accessKeyId(),
                                location.secretAccessKey(),
                                true),
                        S3Bucket.MIN_PART_SIZE);
                BlobStorage storage = BlobStorage.s3(s3.bucket(location))) {
            Digest digest = Digest.sha256("layer".getBytes());
            storage.blobs().put(new ByteArrayInputStream("layer".getBytes()), digest, 100);
            assertThat(raw.size(
                            location.prefix() + "blobs/sha256/" + digest.hex().substring(0, 2) + "/" + digest.hex()))
                    .hasValue(5L);
        }
    }

    @Test
    void anUnreachableServiceIsABlobStorageFailureNotAMissingBlob() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        S3Location nowhere =
                new S3Location(URI.create("http://127.0.0.1:" + closedPort), "us-east-1", "baton", "", "k", "s", true);
        try (BlobStorage storage = BlobStorage.s3(S3Bucket.connect(nowhere, S3Bucket.MIN_PART_SIZE))) {
            assertThatThrownBy(() -> storage.blobs().size(Digest.sha256(new byte[0])))
                    .isInstanceOf(BlobStorageException.class);
            assertThatThrownBy(() -> storage.objects().read("x"))
                    .isInstanceOf(BlobStorageException.class)
                    .hasMessageContaining("S3 bucket baton");
        }
    }
}
