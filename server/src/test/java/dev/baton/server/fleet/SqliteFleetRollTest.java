package dev.baton.server.fleet;

/** The fleet roll on the embedded SQLite store. */
class SqliteFleetRollTest extends FleetRollContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
