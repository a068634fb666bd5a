package dev.baton.broker;

import java.nio.file.Path;

/** Transport A on SQLite. */
class SqliteNatsLeasesTest extends NatsLeasesContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
