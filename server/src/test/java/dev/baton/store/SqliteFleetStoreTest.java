package dev.baton.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Issue 41's store parts on a SQLite file. */
class SqliteFleetStoreTest extends FleetStoreContract {
    @TempDir
    Path dataDir;

    @Override
    Store openStore() {
        return StoreFactory.open(null, dataDir);
    }
}
