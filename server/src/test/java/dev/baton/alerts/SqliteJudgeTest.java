package dev.baton.alerts;

import dev.baton.store.Store;
import dev.baton.store.StoreFactory;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Judging on a SQLite file. */
class SqliteJudgeTest extends JudgeContract {
    @TempDir
    Path dataDir;

    @Override
    Store openStore() {
        return StoreFactory.open(null, dataDir);
    }
}
