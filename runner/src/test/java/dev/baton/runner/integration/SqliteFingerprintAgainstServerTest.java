package dev.baton.runner.integration;

/** The fingerprint end to end on the embedded SQLite store. */
class SqliteFingerprintAgainstServerTest extends FingerprintAgainstServerContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
