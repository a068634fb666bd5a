package dev.baton.runner.integration;

/** Runners' noise end to end on the embedded SQLite store. */
class SqliteNoiseAgainstServerTest extends NoiseAgainstServerContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
