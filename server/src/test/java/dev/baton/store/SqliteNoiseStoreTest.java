package dev.baton.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Runners' noise calibrations on a SQLite file. */
class SqliteNoiseStoreTest extends NoiseStoreContract {
    @TempDir
    Path dataDir;

    @Override
    Store openStore() {
        return StoreFactory.open(null, dataDir);
    }
}
