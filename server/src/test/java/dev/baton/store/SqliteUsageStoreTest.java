package dev.baton.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Usage per period on a SQLite file. */
class SqliteUsageStoreTest extends UsageStoreContract {
    @TempDir
    Path dataDir;

    @Override
    Store openStore() {
        return StoreFactory.open(null, dataDir);
    }
}
