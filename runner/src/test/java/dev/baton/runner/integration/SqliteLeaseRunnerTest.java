package dev.baton.runner.integration;

/** The Java runner on transport A against a server on SQLite. */
class SqliteLeaseRunnerTest extends LeaseRunnerContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
