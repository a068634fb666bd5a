package dev.baton.server.channel;

import java.nio.file.Path;

/** The late final words on the embedded SQLite store. */
class SqliteLateFinalWordTest extends LateFinalWordContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
