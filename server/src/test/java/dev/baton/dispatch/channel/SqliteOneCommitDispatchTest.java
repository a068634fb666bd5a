package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** Dispatch in one commit on the embedded SQLite store. */
class SqliteOneCommitDispatchTest extends OneCommitDispatchContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
