package dev.baton.runner.integration;

/** Paired runs end to end on the embedded SQLite store. */
class SqlitePairedRunAgainstServerTest extends PairedRunAgainstServerContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
