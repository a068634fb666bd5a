package dev.baton.dispatch.pools;

import java.nio.file.Path;

/** The pool scaler scenarios on the embedded SQLite store. */
class SqlitePoolScalerTest extends PoolScalerContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
