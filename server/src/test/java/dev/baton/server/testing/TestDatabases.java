package dev.baton.server.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.UUID;

/**
 * The PostgreSQL used by tests: BATON_TEST_PG_URL or 127.0.0.1:5432/test. Each caller gets a
 * fresh schema so runs never see each other's rows.
 */
public final class TestDatabases {
    public static final String PG_HOST_URL =
            System.getenv().getOrDefault("BATON_TEST_PG_URL", "postgresql://127.0.0.1:5432/test");
    private static final String USER = System.getenv().getOrDefault("BATON_TEST_PG_USER", "postgres");

    private TestDatabases() {}

    public static boolean postgresReachable() {
        try (Connection c = DriverManager.getConnection(jdbc(PG_HOST_URL), USER, "")) {
            return c.isValid(2);
        } catch (SQLException e) {
            return false;
        }
    }

    /** Creates a new empty schema and returns a Baton database URL that uses it. */
    public static String freshPostgresSchema() {
        String schema =
                "baton_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection c = DriverManager.getConnection(jdbc(PG_HOST_URL), USER, "")) {
            c.createStatement().execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test schema on " + PG_HOST_URL, e);
        }
        return PG_HOST_URL + "?user=" + USER + "&currentSchema=" + schema;
    }

    private static String jdbc(String url) {
        return "jdbc:" + url;
    }
}
