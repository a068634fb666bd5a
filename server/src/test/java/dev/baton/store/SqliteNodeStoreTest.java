package dev.baton.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store's side of several nodes on a SQLite file (one node in production; the SQL is shared). */
class SqliteNodeStoreTest extends NodeStoreContract {
    @TempDir
    Path dataDir;

    @Override
    Store openStore() {
        return StoreFactory.open(null, dataDir);
    }
}
