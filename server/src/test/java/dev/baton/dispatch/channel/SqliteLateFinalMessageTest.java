package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The late final words on the embedded SQLite store. */
class SqliteLateFinalMessageTest extends LateFinalMessageContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
