package dev.baton.server.dispatch;

import java.nio.file.Path;

/** One claim per spec set in flight, on the embedded SQLite store. */
class SqliteOneClaimInFlightTest extends OneClaimInFlightContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}
