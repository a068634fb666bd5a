package dev.baton.broker;

import java.nio.file.Path;

/** The NATS transport on SQLite. */
class SqliteNatsLeasesTest extends NatsLeasesContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
