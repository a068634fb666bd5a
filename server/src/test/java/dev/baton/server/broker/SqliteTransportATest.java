package dev.baton.server.broker;

import java.nio.file.Path;

/** Transport A on SQLite. */
class SqliteTransportATest extends TransportAContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
