package dev.baton.web.auth;

import java.nio.file.Path;

/** Access on the embedded SQLite file. */
class SqliteAccessTest extends AccessContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
