package dev.baton.dispatch.pools;

import java.nio.file.Path;

/** The production observer on the embedded SQLite store. */
class SqliteStoreObserverTest extends StoreObserverContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
