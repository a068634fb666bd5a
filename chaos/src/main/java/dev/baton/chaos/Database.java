package dev.baton.chaos;

/** The store the suite's servers share: SQLite allows one node, PostgreSQL several. */
public enum Database {
    SQLITE,
    POSTGRESQL
}
