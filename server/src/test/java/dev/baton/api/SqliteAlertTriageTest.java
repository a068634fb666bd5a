package dev.baton.api;

/** Triage and alert groups on SQLite (a file in the test's directory). */
class SqliteAlertTriageTest extends AlertTriageContract {
    @Override
    String databaseUrl() {
        return null;
    }
}
