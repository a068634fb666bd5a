package dev.baton.server.alerts;

import dev.baton.server.store.Store;
import dev.baton.server.store.StoreFactory;
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
