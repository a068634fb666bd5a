package dev.baton.server.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on a real SQLite file (the embedded default: {@code baton.db} in the data directory). */
class SqliteStoreTest extends StoreContract {
    @TempDir
    Path dataDir;

    @Override
    protected Store openStore() {
        return StoreFactory.open(null, dataDir);
    }
}
