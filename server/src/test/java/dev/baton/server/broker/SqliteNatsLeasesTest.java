package dev.baton.server.broker;

import java.nio.file.Path;

/** Transport A on SQLite. */
class SqliteNatsLeasesTest extends NatsLeasesContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
