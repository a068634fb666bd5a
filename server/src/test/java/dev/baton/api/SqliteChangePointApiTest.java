package dev.baton.api;

/** Stored change points through the API on SQLite (a file in the test's directory). */
class SqliteChangePointApiTest extends ChangePointApiContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
