package dev.baton.runner.integration;

/** The Java runner on the NATS transport against a server on SQLite. */
class SqliteLeaseRunnerTest extends LeaseRunnerContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
