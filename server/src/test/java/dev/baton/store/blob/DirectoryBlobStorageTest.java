package dev.baton.store.blob;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The storage contract on one directory opened by two "nodes" (as on a shared mount). */
class DirectoryBlobStorageTest extends BlobStorageContract {
    @TempDir
    Path root;

    @Override
    BlobStorage[] openTwice() {
        return new BlobStorage[] {BlobStorage.directory(root), BlobStorage.directory(root)};
    }
}
