package dev.baton.runner.integration;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The PostgreSQL of the tests (BATON_TEST_PG_URL or 127.0.0.1:5432/test), one fresh schema per
 * caller, as the server's own tests get it (their helper lives in the server's test classes,
 * which this module does not see).
 */
final class PostgresSchemas {
    static final String URL = System.getenv().getOrDefault("BATON_TEST_PG_URL", "postgresql://127.0.0.1:5432/test");
    private static final String USER = System.getenv().getOrDefault("BATON_TEST_PG_USER", "postgres");

    private PostgresSchemas() {}

    static boolean reachable() {
        try (Connection c = DriverManager.getConnection("jdbc:" + URL, USER, "")) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    /** A new empty schema, as a Baton database URL. */
    static String fresh() {
        String schema =
                "baton_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = DriverManager.getConnection("jdbc:" + URL, USER, "")) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a test schema on " + URL, e);
        }
        return URL + "?user=" + USER + "&currentSchema=" + schema;
    }
}
