package dev.baton.registry;

import dev.baton.server.testing.S3rver;
import dev.baton.store.blob.BlobStorage;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The skopeo push and pull tests with blobs and registry metadata in an S3-compatible bucket: a
 * real s3rver process standing in for S3 or MinIO.
 */
@Tag("s3")
class RegistrySkopeoS3Test extends RegistrySkopeoTest {
    static S3rver s3;

    @BeforeAll
    static void startS3() throws Exception {
        SkopeoTool.require();
        s3 = S3rver.start();
    }

    @AfterAll
    static void stopS3() throws Exception {
        if (s3 != null) s3.close();
    }

    @Override
    RegistryFixture startRegistry(Path dataDir) throws Exception {
        return new RegistryFixture(dataDir, 1024L * 1024 * 1024, BlobStorage.s3(s3.bucket(s3.freshLocation())));
    }
}
