package dev.baton.runner.integration;

/** A job's pull token end to end on the embedded SQLite store. */
class SqlitePullTokenAgainstServerTest extends PullTokenAgainstServerContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
